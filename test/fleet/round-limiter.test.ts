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

// Issue 25, hole 4: 400 clusters of one tenant whose API never answers held all 16 slots, and another
// tenant's healthy cluster waited behind them.
describe('the round limiter across tenants', () => {
  const hanging = () => new Promise<void>(() => {});

  it("gives a quiet tenant the first slot a hanging tenant's round frees, not the hanging tenant's queue", async () => {
    const limiter = new RoundLimiter(4, 50);
    for (let i = 0; i < 20; i++) void limiter.run(hanging, { tenant: 'noisy' });
    // The noisy tenant alone may use every slot.
    expect(limiter.load).toEqual({ running: 4, waiting: 16 });
    const asked = Date.now();
    await limiter.run(async () => undefined, { tenant: 'quiet' });
    // Within one hold (50 ms) plus slack, although 16 noisy rounds were queued before it.
    expect(Date.now() - asked).toBeLessThan(1000);
  });

  it('gives a freed slot to the tenant served longest ago, and caps a tenant at three quarters while others wait', async () => {
    const limiter = new RoundLimiter(4);
    const gates = new Map<string, () => void>();
    const order: string[] = [];
    const run = (tenant: string, id: string) =>
      limiter.run(() => {
        order.push(id);
        return new Promise<void>((resolve) => gates.set(id, resolve));
      }, { tenant });
    const all = [run('a', 'a1'), run('a', 'a2'), run('a', 'a3'), run('a', 'a4'), run('a', 'a5'), run('b', 'b1'), run('b', 'b2'), run('c', 'c1')];
    expect(order).toEqual(['a1', 'a2', 'a3', 'a4']);
    gates.get('a1')?.();
    await new Promise((resolve) => setImmediate(resolve));
    // a holds 3 of 4: the freed slot goes to b (never served), not to a's next round.
    expect(order).toEqual(['a1', 'a2', 'a3', 'a4', 'b1']);
    gates.get('a2')?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order.at(-1)).toBe('c1');
    gates.get('a3')?.();
    await new Promise((resolve) => setImmediate(resolve));
    // Running a4, b1, c1; waiting a5 and b2: a was served longest ago (a4, before b1 and c1).
    expect(order.at(-1)).toBe('a5');
    for (const id of ['a4', 'a5', 'b1', 'b2', 'c1']) gates.get(id)?.();
    await new Promise((resolve) => setImmediate(resolve));
    gates.get('b2')?.();
    await Promise.all(all);
    expect(order).toEqual(['a1', 'a2', 'a3', 'a4', 'b1', 'c1', 'a5', 'b2']);
  });

  it('frees the slot of a round that hangs past holdMs, which goes on without it', async () => {
    const limiter = new RoundLimiter(1, 50);
    void limiter.run(hanging, { tenant: 'noisy' });
    const started = Date.now();
    await limiter.run(async () => undefined, { tenant: 'quiet' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(limiter.load).toEqual({ running: 0, waiting: 0 });
  });
});
