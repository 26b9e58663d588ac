import { describe, expect, it } from 'vitest';
import type { RoundObservations } from '../../src/probe/observations.ts';
import { RoundJudge } from '../../src/probe/round-judge.ts';
import { round, three, type FakeMember } from './observation-builders.ts';
import { TEST_THRESHOLDS } from './snapshot-builder.ts';

// Rounds judged one after another, as the prober does, from scripted observations: the verdict's
// sequence over time (leader memory, election grace, history checks), with no etcd.

function judgeAll(rounds: readonly [seconds: number, observations: RoundObservations][]) {
  const judge = new RoundJudge({ thresholds: TEST_THRESHOLDS, history: { windowMs: 3_600_000, maxBytes: 2 ** 20, checksMs: 900_000 }, mode: 'static' });
  return rounds.map(([s, o]) => {
    const snapshot = judge.judge({ ...o, startedAt: s * 1000 }, s * 1000 + 5);
    return { s, status: snapshot.verdict.status, codes: snapshot.verdict.reasons.map((r) => r.code).sort(), leader: snapshot.verdict.leader?.name ?? null, changes: snapshot.changes };
  });
}

const healthy = round(three());
const partitioned = round(three({ a: { state: 'unhealthy', leaderId: null }, b: { state: 'unhealthy', leaderId: null }, c: { state: 'unhealthy', leaderId: null } }));

describe('RoundJudge: a verdict over time', () => {
  it('a full partition: an election first, QUORUM_LOST once the grace is over, healthy after it heals', () => {
    const seen = judgeAll([
      [0, healthy],
      [2, partitioned],
      [6, partitioned],
      [9.9, partitioned],
      [10.1, partitioned],
      [14, partitioned],
      [16, healthy],
    ]);
    expect(seen.map((r) => [r.s, r.status, r.codes.join(',')])).toEqual([
      [0, 'healthy', ''],
      [2, 'degraded', 'NO_LEADER'],
      [6, 'degraded', 'NO_LEADER'],
      [9.9, 'degraded', 'NO_LEADER'],
      [10.1, 'unhealthy', 'QUORUM_LOST'],
      [14, 'unhealthy', 'QUORUM_LOST'],
      [16, 'healthy', ''],
    ]);
  });

  it('a hung leader: an election, then degraded naming the new leader, with the leader change in the changes', () => {
    const hung: FakeMember[] = three({ a: { state: 'unreachable' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } });
    const newLeader = three({ a: { state: 'unreachable' }, b: { raftTerm: 3 }, c: { raftTerm: 3 } });
    const seen = judgeAll([
      [0, healthy],
      [1, round(hung)],
      [2, round(newLeader, { leader: 'b' })],
      [3, round(newLeader, { leader: 'b' })],
    ]);
    expect(seen.map((r) => [r.status, r.codes.join(','), r.leader])).toEqual([
      ['healthy', '', 'm-a'],
      ['degraded', 'MEMBER_UNREACHABLE,NO_LEADER', null],
      ['degraded', 'MEMBER_UNREACHABLE', 'm-b'],
      ['degraded', 'MEMBER_UNREACHABLE', 'm-b'],
    ]);
    expect(seen[2]?.changes.filter((c) => c.kind === 'leader')).toEqual([
      { kind: 'leader', at: 2005, from: { id: 'a', name: 'm-a' }, to: { id: 'b', name: 'm-b' }, fromTerm: 2, toTerm: 3, elections: 1, afterQuorumLoss: false },
    ]);
  });

  it('a member killed and restarted again and again ends in MEMBER_FLAPPING, which goes once it stays up', () => {
    const down = round(three({ c: { state: 'unreachable' } }));
    const seconds = [0, 10, 20, 30, 40, 50];
    const seen = judgeAll(seconds.map((s, i) => [s, i % 2 === 0 ? healthy : down] as [number, RoundObservations]));
    expect(seen.map((r) => r.codes.includes('MEMBER_FLAPPING'))).toEqual([false, false, false, false, true, true]);
    const later = judgeAll([...seconds.map((s, i) => [s, i % 2 === 0 ? healthy : down] as [number, RoundObservations]), [700, healthy]]);
    expect(later.at(-1)?.codes).toEqual([]);
  });
});
