import { describe, expect, it } from 'vitest';
import { judgeFlapping, judgeLeaderChanges, judgeStalls, type HistoryThresholds } from '../../../src/probe/history/history-checks.ts';
import type { RoundRecord } from '../../../src/probe/history/round-record.ts';
import { rec } from './record-builders.ts';

const T: HistoryThresholds = { leaderChangesMax: 4, leaderChangesWindowMs: 900_000, flapChangesMax: 4, flapWindowMs: 600_000, stallRounds: 3 };

function split(rounds: RoundRecord[]): [RoundRecord[], RoundRecord] {
  return [rounds.slice(0, -1), rounds.at(-1) as RoundRecord];
}

describe('FREQUENT_LEADER_CHANGES', () => {
  const moves = (leaders: ('a' | 'b' | 'c' | null)[], step = 60) => leaders.map((leader, i) => rec(i * step, { leader, term: 2 + i }));

  it('is silent below the threshold and fires at it, with the changes seen', () => {
    expect(judgeLeaderChanges(...split(moves(['a', 'b', 'c', 'a'])), T)).toEqual([]);
    const [r] = judgeLeaderChanges(...split(moves(['a', 'b', 'c', 'a', 'b'])), T);
    expect(r?.code).toBe('FREQUENT_LEADER_CHANGES');
    expect(r?.message).toBe('4 leader elections in the last 15m (4 or more is frequent): 00:01:00 m-a → m-b; 00:02:00 m-b → m-c; 00:03:00 m-c → m-a; 00:04:00 m-a → m-b');
  });

  it('counts no election for a term jump under the same leader (issue 26: the lone survivor of a lost quorum campaigns)', () => {
    const rounds = [rec(0, { term: 2 }), rec(60, { term: 3 }), rec(120, { term: 12 })];
    expect(judgeLeaderChanges(...split(rounds), { ...T, leaderChangesMax: 1 })).toEqual([]);
  });

  it('counts no election for a leader change that ended a lost quorum, and counts the next one', () => {
    const lost = [rec(0, { leader: 'a', term: 2 }), rec(5, { leader: null, status: 'unhealthy' }), rec(10, { leader: 'b', term: 12 })];
    expect(judgeLeaderChanges(...split(lost), { ...T, leaderChangesMax: 1 })).toEqual([]);
    const then = [...lost, rec(20, { leader: 'c', term: 13 })];
    expect(judgeLeaderChanges(...split(then), { ...T, leaderChangesMax: 1 })[0]?.message).toMatch(/^1 leader elections .*00:00:20 m-b → m-c$/);
  });

  it('skips rounds without a confirmed leader (the election itself) and counts the change across them', () => {
    const rounds = [rec(0, { leader: 'a', term: 2 }), rec(5, { leader: null }), rec(10, { leader: 'b', term: 3 })];
    expect(judgeLeaderChanges(...split(rounds), { ...T, leaderChangesMax: 1 })[0]?.message).toMatch(/1 leader elections .*00:00:10 m-a → m-b$/);
  });

  it('forgets changes older than the window', () => {
    expect(judgeLeaderChanges(...split(moves(['a', 'b', 'c', 'a', 'b'], 300)), T)).toEqual([]);
  });
});

describe('MEMBER_FLAPPING', () => {
  const cycle = (states: ('healthy' | 'unreachable' | 'unhealthy')[]) => states.map((c, i) => rec(i * 30, { states: { c } }));

  it('fires for the member that changed state often enough, with its path', () => {
    const [r, ...more] = judgeFlapping(...split(cycle(['healthy', 'unreachable', 'healthy', 'unreachable', 'healthy'])), T);
    expect(more).toEqual([]);
    expect(r?.member).toEqual({ id: 'c', name: 'm-c' });
    expect(r?.message).toBe('m-c changed state 4 times in the last 10m (healthy → unreachable → healthy → unreachable → healthy)');
  });

  it('counts a long stay in one state once', () => {
    expect(judgeFlapping(...split(cycle(['healthy', 'unreachable', 'unreachable', 'unreachable', 'healthy', 'healthy'])), T)).toEqual([]);
  });

  it('forgets changes older than the window', () => {
    const rounds = ['healthy', 'unreachable', 'healthy', 'unreachable', 'healthy'].map((c, i) => rec(i * 200, { states: { c: c as 'healthy' } }));
    expect(judgeFlapping(...split(rounds), T)).toEqual([]);
  });
});

describe('MEMBER_STALLED', () => {
  it("fires when a follower's applied index stays put over the rounds while the leader's moves", () => {
    const rounds = [0, 5, 10].map((at) => rec(at, { applied: { a: 200 + at, b: 150 } }));
    const [r] = judgeStalls(...split(rounds), T);
    expect(r?.member).toEqual({ id: 'b', name: 'm-b' });
    expect(r?.message).toBe("m-b's applied index stayed at 150 over the last 3 rounds (10s) while the leader m-a's went from 200 to 210");
  });

  it('is silent when the leader does not move either (nothing to apply)', () => {
    expect(judgeStalls(...split([0, 5, 10].map((at) => rec(at, { applied: { a: 200, b: 150, c: 200 } }))), T)).toEqual([]);
  });

  it('is silent when the rounds span less than 10 s (back-to-back rounds outrun a healthy follower)', () => {
    expect(judgeStalls(...split([0, 4, 9.9].map((at) => rec(at, { applied: { a: 200 + Math.round(at), b: 150 } }))), T)).toEqual([]);
  });

  it('is silent with fewer rounds than the setting', () => {
    expect(judgeStalls(...split([0, 5].map((at) => rec(at, { applied: { a: 200 + at, b: 150 } }))), T)).toEqual([]);
  });

  it('is silent for a member that did not answer, and without a confirmed leader', () => {
    expect(judgeStalls(...split([0, 5, 10].map((at) => rec(at, { applied: { a: 200 + at, b: null } }))), T)).toEqual([]);
    expect(judgeStalls(...split([0, 5, 10].map((at) => rec(at, { leader: null, applied: { a: 200 + at, b: 150 } }))), T)).toEqual([]);
  });

  it('is silent when the follower moved once within the span', () => {
    const rounds = [rec(0, { applied: { a: 200, b: 149 } }), rec(5, { applied: { a: 205, b: 150 } }), rec(10, { applied: { a: 210, b: 150 } })];
    expect(judgeStalls(...split(rounds), T)).toEqual([]);
  });
});
