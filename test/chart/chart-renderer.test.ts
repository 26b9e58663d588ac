import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { render, renderer, renderNotes, renderText } from '../helpers/chart-render.ts';

// The renderer itself, on a fixture chart that uses each helm feature the chart relies on. The
// expectations are helm's behaviour, so they hold for `helm template` and tools/chart-render alike.

const chartDir = fileURLToPath(new URL('../fixtures/render-chart/', import.meta.url));

function data(set: Record<string, string | number | boolean> = {}): Record<string, string> {
  const configMap = render({ chartDir, name: 'rel', namespace: 'ns', set }).find((o) => o.kind === 'ConfigMap');
  return (configMap as unknown as { data: Record<string, string> }).data;
}

describe(`the chart renderer (${renderer().kind})`, () => {
  it('renders include, tpl, required, .Chart, .Release, .Template, .Capabilities and sprig as helm does', () => {
    expect(data()).toMatchObject({
      included: 'RENDER-FIXTURE-REL',
      tpl: 'hello from rel',
      required: 'hello',
      chart: 'render-fixture/1.2.3/4.5.6',
      service: 'Helm',
      template: 'render-fixture/templates/configmap.yaml',
      hasApps: 'true',
      hasMonitoring: 'false',
      sprig: '1-2-3',
    });
  });

  it('renders a missing value as empty, not "<no value>"', () => {
    expect(data().missing).toBe('[]');
  });

  it('reads numbers from values files as float64 and from --set as int64, like helm', () => {
    expect(data().countKind).toBe('float64');
    expect(data({ count: 7 })).toMatchObject({ countKind: 'int64', count: '7' });
  });

  it('types --set booleans and deletes a key set to null', () => {
    expect(data({ flag: true }).flag).toBe('true');
    expect(data().nestedKeys).toBe('drop,keep,list');
    expect(data({ 'nested.drop': 'null' }).nestedKeys).toBe('keep,list');
  });

  it('serializes with toYaml and reads chart files with .Files.Get and fromYaml', () => {
    expect(data()['nested.yaml']).toBe('drop: dropped\nkeep: kept\nlist:\n- a\n- b\n');
    expect(data()['files.yaml']).toBe('- items:\n  - 1\n  - 2\n  name: one\n');
    expect(data().broken).toBe('true');
  });

  it('fails with required\'s message when the value is empty', () => {
    expect(() => render({ chartDir, set: { greeting: '' } })).toThrow('greeting is required');
  });

  it('omits templates that render to nothing and labels each document with its source', () => {
    const text = renderText({ chartDir, name: 'rel' });
    expect(text).toContain('# Source: render-fixture/templates/configmap.yaml');
    expect(text).not.toContain('empty.yaml');
    expect(text).not.toContain('Notes for');
  });

  it('renders NOTES.txt on its own', () => {
    expect(renderNotes({ chartDir, name: 'rel', namespace: 'ns' }).trim()).toBe('Notes for rel in ns.');
  });
});

describe(`the chart renderer's schema check (${renderer().kind})`, () => {
  it('checks the merged values against values.schema.json before rendering, naming the value', () => {
    expect(() => render({ chartDir, set: { flag: 'maybe' } })).toThrow(/flag/);
  });

  it('renders anyway with --skip-schema-validation', () => {
    const configMap = render({ chartDir, set: { flag: 'maybe' }, skipSchemaValidation: true }).find((o) => o.kind === 'ConfigMap');
    expect((configMap as unknown as { data: Record<string, string> }).data.flag).toBe('maybe');
  });
});
