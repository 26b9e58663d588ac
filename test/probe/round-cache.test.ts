import { afterEach, describe, expect, it, vi } from 'vitest';
import { RoundCache, type CacheRead } from '../../src/probe/round-cache.ts';

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A cache over a clock `t` that the test moves, and a load whose rounds the test finishes one by one. */
function harness(options: { ttlMs?: number; minForcedIntervalMs?: number; staleMs?: number } = {}) {
  const state = { t: 0 };
  const rounds: Deferred<string>[] = [];
  const load = vi.fn(() => {
    const round = deferred<string>();
    rounds.push(round);
    return round.promise;
  });
  const cache = new RoundCache<string>({
    load,
    ttlMs: options.ttlMs ?? 5000,
    minForcedIntervalMs: options.minForcedIntervalMs ?? 1000,
    staleMs: options.staleMs ?? 0,
    now: () => state.t,
  });
  /** Finishes the latest round with value and lets its waiters run. */
  const finish = async (value: string): Promise<void> => {
    const round = rounds.at(-1);
    if (!round) throw new Error('no round was started');
    round.resolve(value);
    await cache.settle();
  };
  /** Starts a get, finishes the round it started with value, and returns what the get read. */
  const loaded = async (value: string, options: { fresh?: boolean } = {}): Promise<CacheRead<string>> => {
    const read = cache.get(options);
    await finish(value);
    return read;
  };
  return { state, load, cache, rounds, finish, loaded };
}

describe('RoundCache', () => {
  it('loads on the first get', async () => {
    const { cache, load, loaded } = harness();
    expect(cache.peek()).toBeNull();
    expect(await loaded('round 1')).toEqual({ value: 'round 1', completedAt: 0, cache: 'miss' });
    expect(load).toHaveBeenCalledTimes(1);
    expect(cache.peek()).toEqual({ value: 'round 1', completedAt: 0 });
  });

  it('serves the result within the TTL without loading again', async () => {
    const { state, cache, load, loaded } = harness({ ttlMs: 5000 });
    await loaded('round 1');
    state.t = 4999;
    expect(await cache.get()).toEqual({ value: 'round 1', completedAt: 0, cache: 'hit' });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('loads again once the TTL has passed', async () => {
    const { state, load, loaded } = harness({ ttlMs: 5000 });
    await loaded('round 1');
    state.t = 5000;
    expect(await loaded('round 2')).toEqual({ value: 'round 2', completedAt: 5000, cache: 'miss' });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('counts the TTL from when the round finished, not when it started', async () => {
    const { state, cache, load, finish } = harness({ ttlMs: 5000 });
    const read = cache.get();
    state.t = 300;
    await finish('slow round');
    expect((await read).completedAt).toBe(300);
    state.t = 5299;
    expect((await cache.get()).cache).toBe('hit');
    state.t = 5300;
    void cache.get();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('makes 1000 concurrent gets on a cold cache share one load', async () => {
    const { cache, load, finish } = harness();
    const reads = Array.from({ length: 1000 }, () => cache.get());
    expect(load).toHaveBeenCalledTimes(1);
    await finish('shared');
    const results = await Promise.all(reads);
    expect(load).toHaveBeenCalledTimes(1);
    expect(results.filter((r) => r.cache === 'miss')).toHaveLength(1);
    expect(results.filter((r) => r.cache === 'coalesced')).toHaveLength(999);
    expect(results[0]?.cache).toBe('miss');
    expect(new Set(results.map((r) => r.value))).toEqual(new Set(['shared']));
  });

  it('starts a forced round on fresh even when the result is young', async () => {
    const { state, load, loaded } = harness({ ttlMs: 5000, minForcedIntervalMs: 1000 });
    await loaded('round 1');
    state.t = 10;
    expect(await loaded('forced', { fresh: true })).toEqual({ value: 'forced', completedAt: 10, cache: 'miss' });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('starts at most one forced round per interval', async () => {
    const { state, cache, load, loaded } = harness({ ttlMs: 5000, minForcedIntervalMs: 1000 });
    await loaded('round 1');
    state.t = 10;
    await loaded('forced 1', { fresh: true });
    state.t = 1009;
    expect(await cache.get({ fresh: true })).toEqual({ value: 'forced 1', completedAt: 10, cache: 'hit' });
    expect(load).toHaveBeenCalledTimes(2);
    state.t = 1010;
    expect(await loaded('forced 2', { fresh: true })).toEqual({ value: 'forced 2', completedAt: 1010, cache: 'miss' });
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('serves a forced result to ordinary gets', async () => {
    const { state, cache, loaded } = harness({ ttlMs: 5000 });
    await loaded('round 1');
    state.t = 4000;
    await loaded('forced', { fresh: true });
    state.t = 8999;
    expect(await cache.get()).toEqual({ value: 'forced', completedAt: 4000, cache: 'hit' });
  });

  it('counts a fresh get on a cold cache as the forced round of its interval', async () => {
    const { state, cache, load, loaded } = harness({ minForcedIntervalMs: 1000 });
    expect((await loaded('first', { fresh: true })).cache).toBe('miss');
    state.t = 500;
    expect((await cache.get({ fresh: true })).cache).toBe('hit');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('makes a fresh get join the round in flight', async () => {
    const { cache, load, finish } = harness();
    const first = cache.get();
    const forced = cache.get({ fresh: true });
    await finish('in flight');
    expect(await first).toMatchObject({ value: 'in flight', cache: 'miss' });
    expect(await forced).toMatchObject({ value: 'in flight', cache: 'coalesced' });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('gives a failed round\'s error to every waiter, keeps the last result, and retries on the next get', async () => {
    const { state, cache, load, rounds, loaded } = harness({ ttlMs: 5000 });
    await loaded('good round');
    state.t = 6000;
    const first = cache.get();
    const second = cache.get();
    const failure = new Error('etcd client exploded');
    rounds.at(-1)?.reject(failure);
    expect(await Promise.allSettled([first, second])).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
    expect(cache.peek()).toEqual({ value: 'good round', completedAt: 0 });
    state.t = 6001;
    expect(await loaded('recovered')).toEqual({ value: 'recovered', completedAt: 6001, cache: 'miss' });
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('retries after a failed first round', async () => {
    const { cache, load, rounds, loaded } = harness();
    const read = cache.get();
    rounds.at(-1)?.reject(new Error('down'));
    await expect(read).rejects.toThrow('down');
    expect(cache.peek()).toBeNull();
    expect((await loaded('up')).cache).toBe('miss');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('lets settle wait for the round in flight', async () => {
    const { cache, rounds } = harness();
    void cache.get();
    let settled = false;
    const settling = cache.settle().then(() => {
      settled = true;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    rounds.at(-1)?.resolve('done');
    await settling;
    expect(settled).toBe(true);
    expect(cache.peek()?.value).toBe('done');
  });

  it('lets settle return at once when idle, and swallow a failed round', async () => {
    const { cache, rounds } = harness();
    await expect(cache.settle()).resolves.toBeUndefined();
    const read = cache.get();
    read.catch(() => undefined);
    rounds.at(-1)?.reject(new Error('down'));
    await expect(cache.settle()).resolves.toBeUndefined();
  });

  it('answers past the TTL from the latest round while the next runs, within the stale window', async () => {
    const { state, cache, load, finish, loaded } = harness({ ttlMs: 5000, staleMs: 2000 });
    await loaded('round 1');
    state.t = 5000;
    // Answered at once (no await on the load), and the next round started behind it.
    expect(await cache.get()).toEqual({ value: 'round 1', completedAt: 0, cache: 'stale' });
    expect(load).toHaveBeenCalledTimes(2);
    state.t = 6999;
    expect(await cache.get()).toEqual({ value: 'round 1', completedAt: 0, cache: 'stale' });
    expect(load).toHaveBeenCalledTimes(2);
    await finish('round 2');
    expect(await cache.get()).toEqual({ value: 'round 2', completedAt: 6999, cache: 'hit' });
  });

  it('waits once the latest round is older than TTL + stale window', async () => {
    const { state, cache, load, finish, loaded } = harness({ ttlMs: 5000, staleMs: 2000 });
    await loaded('round 1');
    state.t = 7000;
    const read = cache.get();
    await finish('round 2');
    expect(await read).toEqual({ value: 'round 2', completedAt: 7000, cache: 'miss' });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('makes fresh and stale: false reads wait for the round in flight rather than answer stale', async () => {
    const { state, cache, finish, loaded } = harness({ ttlMs: 5000, staleMs: 2000 });
    await loaded('round 1');
    state.t = 5500;
    const strict = cache.get({ stale: false });
    const forced = cache.get({ fresh: true });
    expect((await cache.get()).cache).toBe('stale');
    await finish('round 2');
    expect(await strict).toEqual({ value: 'round 2', completedAt: 5500, cache: 'miss' });
    expect(await forced).toEqual({ value: 'round 2', completedAt: 5500, cache: 'coalesced' });
  });

  it('keeps answering stale after a failed background round, then waits past the window', async () => {
    const { state, cache, load, rounds, loaded } = harness({ ttlMs: 5000, staleMs: 2000 });
    await loaded('round 1');
    state.t = 5000;
    expect((await cache.get()).cache).toBe('stale');
    rounds.at(-1)?.reject(new Error('down'));
    await cache.settle();
    state.t = 6000;
    expect((await cache.get()).cache).toBe('stale');
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('lets refresh start one round, join the one in flight, and never reject', async () => {
    const { cache, load, rounds } = harness();
    const first = cache.refresh();
    const second = cache.refresh();
    expect(load).toHaveBeenCalledTimes(1);
    rounds.at(-1)?.reject(new Error('down'));
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
  });

  it('never answers stale when the TTL is 0, whatever the stale window', async () => {
    const { state, load, loaded } = harness({ ttlMs: 0, staleMs: 2000 });
    await loaded('a');
    state.t = 1;
    expect((await loaded('b')).cache).toBe('miss');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('loads on every sequential get when the TTL is 0', async () => {
    const { load, loaded } = harness({ ttlMs: 0 });
    const outcomes = [(await loaded('a')).cache, (await loaded('b')).cache, (await loaded('c')).cache];
    expect(outcomes).toEqual(['miss', 'miss', 'miss']);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('still coalesces concurrent gets when the TTL is 0', async () => {
    const { cache, load, finish } = harness({ ttlMs: 0 });
    const reads = [cache.get(), cache.get(), cache.get()];
    await finish('one');
    expect((await Promise.all(reads)).map((r) => r.cache)).toEqual(['miss', 'coalesced', 'coalesced']);
    expect(load).toHaveBeenCalledTimes(1);
  });
});

describe('RoundCache on the system clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires results as the clock moves', async () => {
    vi.useFakeTimers();
    const start = Date.parse('2026-03-01T00:00:00Z');
    vi.setSystemTime(start);
    let n = 0;
    const load = vi.fn(async () => `round ${++n}`);
    const cache = new RoundCache({ load, ttlMs: 5000, minForcedIntervalMs: 1000, now: () => Date.now() });

    expect(await cache.get()).toEqual({ value: 'round 1', completedAt: start, cache: 'miss' });
    vi.advanceTimersByTime(4999);
    expect(await cache.get()).toEqual({ value: 'round 1', completedAt: start, cache: 'hit' });
    vi.advanceTimersByTime(1);
    expect(await cache.get()).toEqual({ value: 'round 2', completedAt: start + 5000, cache: 'miss' });
    vi.setSystemTime(start + 60_000);
    expect(await cache.get()).toEqual({ value: 'round 3', completedAt: start + 60_000, cache: 'miss' });
    expect(load).toHaveBeenCalledTimes(3);
  });
});
