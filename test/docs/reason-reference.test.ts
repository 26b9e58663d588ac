import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderReasonReference } from '../../scripts/docs/reason-reference.ts';
import { REASONS } from '../../src/probe/reason-catalogue.ts';

const onDisk = readFileSync(new URL('../../docs/reasons.md', import.meta.url), 'utf8');

describe('docs/reasons.md', () => {
  it('is what the reason catalogue generates (run npm run docs:reasons after changing a reason)', () => {
    expect(onDisk).toBe(renderReasonReference());
  });

  it.each(Object.entries(REASONS).map(([code, r]) => [code, r.severity]))('lists %s as %s, with when and hint', (code, severity) => {
    expect(onDisk).toMatch(new RegExp(`^\\| \`${code}\` \\| ${severity} \\|`, 'm'));
    expect(onDisk).toContain(`### \`${code}\` — ${severity}`);
  });
});
