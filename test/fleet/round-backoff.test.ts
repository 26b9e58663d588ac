import { describe, expect, it } from 'vitest';
import { BACKOFF_CAP_MS, RoundBackoff } from '../../src/fleet/round-backoff.ts';

describe("a failing cluster's backoff", () => {
  it('doubles from the refresh with each round that reaches nothing, capped at eight refreshes, and resets on one that reaches anything', () => {
    const backoff = new RoundBackoff(30_000);
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      backoff.record(true, 0);
      delays.push(backoff.state(0)?.until ?? 30_000);
    }
    expect(delays).toEqual([30_000, 60_000, 120_000, 240_000, 240_000, 240_000]);
    expect(backoff.skips(239_999)).toBe(true);
    expect(backoff.skips(240_000)).toBe(false);
    backoff.record(false, 250_000);
    expect([backoff.skips(250_001), backoff.state(250_001)]).toEqual([false, null]);
  });

  it('never puts a refresh off for more than ten minutes', () => {
    const backoff = new RoundBackoff(300_000);
    for (let i = 0; i < 10; i++) backoff.record(true, 0);
    expect(backoff.state(0)?.until).toBe(BACKOFF_CAP_MS);
  });
});
