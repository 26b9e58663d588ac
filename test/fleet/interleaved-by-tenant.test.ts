import { describe, expect, it } from 'vitest';
import { interleavedByTenant } from '../../src/fleet/fleet.ts';

const slots = (...names: string[]) => names.map((name) => ({ entry: { name } }));
const names = (ordered: readonly { entry: { name: string } }[]) => ordered.map((s) => s.entry.name);

// Issue 25, hole 4: a refresh spreads its rounds over the interval in this order. In listing order, 400 of
// one tenant's clusters ahead of another's put the other's rounds at the end of every refresh (their
// verdicts aged to refresh + the whole spread: 56.6 s on a 30 s refresh, scripts/bench/noisy-neighbour.ts).
describe("a refresh's order of rounds", () => {
  it('takes one cluster of each tenant in turn, each tenant in its own order', () => {
    expect(names(interleavedByTenant(slots('noisy/a', 'noisy/b', 'noisy/c', 'noisy/d', 'quiet/x', 'quiet/y', 'other/z')))).toEqual([
      'noisy/a',
      'quiet/x',
      'other/z',
      'noisy/b',
      'quiet/y',
      'noisy/c',
      'noisy/d',
    ]);
  });

  it('keeps a clusters file (no namespaces) in its order, and loses or adds nothing', () => {
    expect(names(interleavedByTenant(slots('alpha', 'beta', 'gamma')))).toEqual(['alpha', 'beta', 'gamma']);
    expect(interleavedByTenant([])).toEqual([]);
  });
});
