import { describe, expect, it } from 'vitest';
import { RoundLimiter } from '../../src/fleet/round-limiter.ts';

function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('RoundLimiter', () => {
  it('lets an urgent round (a request waits for it) go before the background rounds already waiting', async () => {
    const limiter = new RoundLimiter(1);
    const gate = deferred();
    const started: string[] = [];
    const round = (name: string, wait?: Promise<void>) => async () => {
      started.push(name);
      await wait;
      return name;
    };
    const first = limiter.run(round('refresh-1', gate.promise));
    const queued = [limiter.run(round('refresh-2')), limiter.run(round('refresh-3')), limiter.run(round('asked', undefined), () => true)];
    await Promise.resolve();
    expect(started).toEqual(['refresh-1']);
    gate.resolve();
    await Promise.all([first, ...queued]);
    expect(started).toEqual(['refresh-1', 'asked', 'refresh-2', 'refresh-3']);
  });

  it('asks whether a waiting round is urgent when a slot frees: a background round a request joined meanwhile goes first', async () => {
    const limiter = new RoundLimiter(1);
    const gate = deferred();
    const started: string[] = [];
    let joined = false;
    const round = (name: string) => async () => void started.push(name);
    const first = limiter.run(async () => gate.promise);
    const queued = [limiter.run(round('refresh-a')), limiter.run(round('refresh-b'), () => joined)];
    joined = true;
    gate.resolve();
    await Promise.all([first, ...queued]);
    expect(started).toEqual(['refresh-b', 'refresh-a']);
  });

  it('runs at most max rounds at once, the others in order as slots free', async () => {
    const limiter = new RoundLimiter(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((g, i) => limiter.run(async () => {
      started.push(i);
      await g.promise;
      return i;
    }));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.load).toEqual({ running: 2, waiting: 2 });
    gates[1]?.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.reject(new Error('a round failed'));
    await expect(runs[0]).rejects.toThrow('a round failed');
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2, 3]);
    gates[2]?.resolve();
    gates[3]?.resolve();
    expect(await Promise.all(runs.slice(2))).toEqual([2, 3]);
    expect(limiter.load).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new RoundLimiter(0)).toThrow('a limit of rounds in flight must be a positive integer, not 0');
  });
});
