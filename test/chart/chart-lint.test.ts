import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, ciValues, lint, type HelmRun } from '../helpers/chart-render.ts';

// `helm lint --strict` with helm 3 and helm 4: with no values (what `helm lint chart` meets) and with
// each worked example under chart/ci/.

const ciFiles = readdirSync(join(CHART_DIR, 'ci')).filter((f) => f.endsWith('.yaml'));

function summary(run: HelmRun): { helm: string; status: number; problems: string[] } {
  return { helm: run.helm, status: run.status, problems: run.stdout.split('\n').filter((line) => /^\[(ERROR|WARNING)\]/.test(line)) };
}

describe('helm lint --strict', () => {
  it('passes with no values; the INFO line names the value an install needs', () => {
    const runs = lint();
    expect(runs.map(summary)).toEqual(runs.map((r) => ({ helm: r.helm, status: 0, problems: [] })));
    for (const run of runs) {
      expect(run.stdout, run.helm).toContain('1 chart(s) linted, 0 chart(s) failed');
      // helm's lint mode turns the template's `fail` into an INFO log line.
      expect(run.stderr, run.helm).toContain('static.endpoints: mode static (the default) needs at least one etcd client URL');
    }
  });

  it.each(ciFiles)('passes with ci/%s', (file) => {
    const runs = lint({ valuesFiles: [ciValues(file)] });
    expect(runs.map(summary)).toEqual(runs.map((r) => ({ helm: r.helm, status: 0, problems: [] })));
  });

  it('fails on a value the schema refuses, naming it', () => {
    for (const run of lint({ set: { replicaCount: -1 } })) {
      expect(run.status, run.helm).not.toBe(0);
      expect(run.stdout, run.helm).toMatch(/\[ERROR\][\s\S]*replicaCount/);
    }
  });
});
