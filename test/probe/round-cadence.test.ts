import { afterEach, describe, expect, it, vi } from 'vitest';
import { RoundCadence } from '../../src/probe/round-cadence.ts';
import { RoundCache } from '../../src/probe/round-cache.ts';

// The cadence over a real RoundCache on fake timers: rounds every TTL whoever polls, a forced round
// moves the next, a failed round is retried after the gap, and stop ends it.

afterEach(() => {
  vi.useRealTimers();
});

/** A cache whose rounds take roundMs (fake time) and record when they started; fail makes them reject. */
function setup(ttlMs: number, roundMs: number) {
  vi.useFakeTimers();
  vi.setSystemTime(0);
  const started: number[] = [];
  const state = { fail: false };
  const cache = new RoundCache<number>({
    load: () => {
      started.push(Date.now());
      return new Promise<number>((resolve, reject) =>
        setTimeout(() => (state.fail ? reject(new Error('down')) : resolve(started.length)), roundMs),
      );
    },
    ttlMs,
    staleMs: 2000,
    minForcedIntervalMs: 1000,
    now: () => Date.now(),
  });
  const cadence = new RoundCadence({ cache, ttlMs, now: () => Date.now() });
  return { cache, cadence, started, state };
}

describe('RoundCadence', () => {
  it('runs a round at start, then one each time the latest reaches its TTL, with nobody polling', async () => {
    const { cadence, started } = setup(5000, 300);
    cadence.start();
    await vi.advanceTimersByTimeAsync(30_000);
    // Each round starts TTL after the previous finished: 0, 5300, 10600, ...
    expect(started).toEqual([0, 5300, 10_600, 15_900, 21_200, 26_500]);
    cadence.stop();
  });

  it('moves the next round to the TTL of one a request forced', async () => {
    const { cache, cadence, started } = setup(5000, 100);
    cadence.start();
    await vi.advanceTimersByTimeAsync(2000);
    const forced = cache.get({ fresh: true });
    await vi.advanceTimersByTimeAsync(100);
    await forced;
    await vi.advanceTimersByTimeAsync(6000);
    expect(started).toEqual([0, 2000, 7100]);
    cadence.stop();
  });

  it('runs nothing at TTL 0: every request has its own round there', async () => {
    const { cadence, started } = setup(0, 100);
    cadence.start();
    await vi.advanceTimersByTimeAsync(5000);
    expect(started).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('retries a failed round after the gap rather than at once, and stops for good', async () => {
    const { cadence, started, state } = setup(5000, 100);
    state.fail = true;
    cadence.start();
    await vi.advanceTimersByTimeAsync(3500);
    expect(started).toEqual([0, 1100, 2200, 3300]);
    cadence.stop();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(started).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0);
  });
});
