import { describe, expect, it } from 'vitest';
import { boundNodes, isNodeName, MAX_MEMBERS } from '../../src/discovery/bound-nodes.ts';

describe('boundNodes (issue 25, hole 2)', () => {
  it('accepts DNS subdomains only', () => {
    expect(isNodeName('cp-0.example.com')).toBe(true);
    expect(isNodeName('a'.repeat(253))).toBe(true);
    expect(isNodeName('a'.repeat(254))).toBe(false);
    for (const bad of ['', 'CP-0', '-cp', 'cp-', 'cp..0', 'cp_0', 'cp 0', '../x', 'cp\n0', 'ｃｐ']) expect(isNodeName(bad), bad).toBe(false);
  });

  it('keeps the first MAX_MEMBERS valid names of a sorted listing and counts the rest, never naming them', () => {
    const names = [...Array.from({ length: 40 }, (_, i) => `cp-${String(i).padStart(2, '0')}`), 'Bad Name', 'x'.repeat(300)];
    const { kept, bounds } = boundNodes(names, (n) => n);
    expect(kept).toEqual(names.slice(0, MAX_MEMBERS));
    expect(bounds).toEqual({ invalidNames: 2, leftOut: 40 - MAX_MEMBERS, max: MAX_MEMBERS });
    expect(JSON.stringify(bounds)).not.toContain('Bad');
  });

  it('leaves a normal listing alone', () => {
    expect(boundNodes(['cp-a', 'cp-b', 'cp-c'], (n) => n)).toEqual({ kept: ['cp-a', 'cp-b', 'cp-c'], bounds: { invalidNames: 0, leftOut: 0, max: MAX_MEMBERS } });
  });
});
