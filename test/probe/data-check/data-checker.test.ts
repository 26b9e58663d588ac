import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MemberClient } from '../../../src/probe/member-client.ts';
import type { KvHash, MemberStatus } from '../../../src/probe/observations.ts';
import type { Outcome } from '../../../src/probe/outcome.ts';
import { DataChecker } from '../../../src/probe/data-check/data-checker.ts';
import type { DataFindings } from '../../../src/probe/data-check/data-checks.ts';

/** A member that answers Status at `revision` and HashKV with `hash`, counting HashKV calls; `gate` holds HashKV until released. */
function member(revision: string, hash: string, gate?: Promise<void>) {
  const calls: string[] = [];
  const client = {
    status: async (): Promise<Outcome<MemberStatus>> => ({ ok: true, value: { revision } as MemberStatus, ms: 1 }),
    hashKv: async (rev: string): Promise<Outcome<KvHash>> => {
      calls.push(rev);
      await gate;
      return { ok: true, value: { revision: rev, compactRevision: '1', hash, currentRevision: revision }, ms: 1 };
    },
  } as unknown as MemberClient;
  return { client, calls };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('DataChecker', () => {
  it('pins the lowest revision, runs one comparison at a time (a second caller joins it), and confirms a divergence on the second comparison', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const a = member('12', '7', gate);
    const b = member('10', '8', gate);
    const c = member('11', '7', gate);
    const reports: DataFindings[] = [];
    const checker = new DataChecker({
      members: () => [{ memberId: 'a', client: a.client }, { memberId: 'b', client: b.client }, { memberId: 'c', client: c.client }],
      report: (f) => reports.push(f),
      intervalMs: 60_000,
      timeoutMs: 1000,
      now: () => 5000,
    });
    const first = checker.check();
    const joined = checker.check();
    expect(joined).toBe(first);
    release();
    expect((await first)?.revision).toBe('10');
    expect([a.calls, b.calls, c.calls]).toEqual([['10'], ['10'], ['10']]);
    expect(reports.map((r) => r.diverged)).toEqual([[]]);
    await checker.check();
    expect(reports.map((r) => r.diverged)).toEqual([[], ['b']]);
    checker.close();
  });

  it('compares nobody before a round has reached a member, and nothing after close()', async () => {
    const reports: DataFindings[] = [];
    let members: { memberId: string; client: MemberClient }[] = [];
    const checker = new DataChecker({ members: () => members, report: (f) => reports.push(f), intervalMs: 60_000, timeoutMs: 1000, now: () => 0 });
    expect(await checker.check()).toBeNull();
    members = [{ memberId: 'a', client: member('5', '1').client }];
    checker.close();
    expect(await checker.check()).toBeNull();
    expect(reports).toEqual([]);
  });

  it('runs on its interval once started, and stops on close()', async () => {
    vi.useFakeTimers();
    const a = member('5', '1');
    const b = member('5', '1');
    const reports: DataFindings[] = [];
    const checker = new DataChecker({
      members: () => [{ memberId: 'a', client: a.client }, { memberId: 'b', client: b.client }],
      report: (f) => reports.push(f),
      intervalMs: 1000,
      timeoutMs: 1000,
      now: () => 0,
    });
    checker.start();
    await vi.advanceTimersByTimeAsync(999);
    expect(reports.length).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(reports.map((r) => r.last.outcome)).toEqual(['consistent']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(reports.length).toBe(2);
    checker.close();
    await vi.advanceTimersByTimeAsync(5000);
    expect(reports.length).toBe(2);
  });
});
