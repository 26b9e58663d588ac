import { describe, expect, it } from 'vitest';
import { fnv1a32, owns, shardOf, WHOLE_FLEET } from '../../src/fleet/shard.ts';

describe('shards', () => {
  it('hashes with FNV-1a 32 (reference values)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('gives every cluster to exactly one of n replicas, stably, and spreads them', () => {
    const names = Array.from({ length: 500 }, (_, i) => `clusters/workload-${i}`);
    for (const count of [1, 2, 3, 5]) {
      const owners = names.map((n) => [0, 1, 2, 3, 4].slice(0, count).filter((index) => owns({ index, count }, n)));
      expect(owners.every((o) => o.length === 1)).toBe(true);
      const sizes = Array.from({ length: count }, (_, index) => owners.filter((o) => o[0] === index).length);
      for (const size of sizes) expect(size).toBeGreaterThan((500 / count) * 0.8);
    }
    expect(names.map((n) => shardOf(n, 3))).toEqual(names.map((n) => shardOf(n, 3)));
    expect(names.every((n) => owns(WHOLE_FLEET, n))).toBe(true);
  });
});
