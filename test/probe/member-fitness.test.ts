import { describe, expect, it } from 'vitest';
import { memberFitness } from '../../src/probe/member-fitness.ts';
import type { RoundObservations } from '../../src/probe/observations.ts';
import { round, three } from './observation-builders.ts';
import { snapshotOf } from './snapshot-builder.ts';

/** member name → [fit under quorum, fit under strict] for a round. */
function fitness(observations: RoundObservations): Record<string, [boolean, boolean]> {
  const snapshot = snapshotOf(observations);
  return Object.fromEntries(snapshot.view.members.map((m) => [m.name, [memberFitness(snapshot.verdict, m, 'quorum').fit, memberFitness(snapshot.verdict, m, 'strict').fit]]));
}

function why(observations: RoundObservations, name: string, policy: 'quorum' | 'strict' = 'quorum'): string {
  const snapshot = snapshotOf(observations);
  const member = snapshot.view.members.find((m) => m.name === name);
  if (!member) throw new Error(`no member ${name}`);
  return memberFitness(snapshot.verdict, member, policy).why;
}

describe('whether a member is fit to serve clients', () => {
  it('a healthy cluster: every member, under both policies', () => {
    expect(fitness(round(three()))).toEqual({ 'm-a': [true, true], 'm-b': [true, true], 'm-c': [true, true] });
  });

  it('one member down: only that one is out; the others stay in under strict too (its trouble is not theirs)', () => {
    const observations = round(three({ c: { state: 'unreachable' } }));
    expect(fitness(observations)).toEqual({ 'm-a': [true, true], 'm-b': [true, true], 'm-c': [false, false] });
    expect(why(observations, 'm-c')).toBe('m-c did not answer this round');
  });

  it('the leader down: only the leader is out', () => {
    const observations = round(three({ a: { state: 'unreachable' }, b: { leaderId: 'b' }, c: { leaderId: 'b' } }), { leader: 'b' });
    expect(fitness(observations)).toEqual({ 'm-a': [false, false], 'm-b': [true, true], 'm-c': [true, true] });
  });

  it('quorum lost: every member is out, the ones that answer too', () => {
    const observations = round(three({ b: { state: 'unreachable' }, c: { state: 'unreachable' }, a: { state: 'unhealthy' } }));
    expect(fitness(observations)).toEqual({ 'm-a': [false, false], 'm-b': [false, false], 'm-c': [false, false] });
    expect(why(observations, 'm-a')).toMatch(/^the cluster cannot serve \(QUORUM_LOST\)/);
  });

  it('an election (every read fails, a majority answers, no leader known): none taken out under quorum, all under strict', () => {
    const observations = round(three({ a: { state: 'unhealthy' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } }), { leader: null });
    const snapshot = snapshotOf(observations);
    expect(snapshot.verdict.reasons.map((r) => r.code)).toContain('NO_LEADER');
    expect(fitness(observations)).toEqual({ 'm-a': [true, false], 'm-b': [true, false], 'm-c': [true, false] });
    expect(why(observations, 'm-a')).toBe('m-a serves clients, while the cluster elects a leader (as every member is)');
  });

  it('cut off from its peers (answers, but its read fails while the others pass): out; strict takes all out while the members disagree on the leader', () => {
    const observations = round(three({ c: { state: 'unhealthy', leaderId: null } }));
    // LEADER_DISAGREEMENT (c knows no leader) is about the cluster, as the cluster's strict answer says.
    expect(snapshotOf(observations).verdict.reasons.map((r) => r.code)).toEqual(expect.arrayContaining(['MEMBER_UNHEALTHY', 'LEADER_DISAGREEMENT']));
    expect(fitness(observations)).toEqual({ 'm-a': [true, false], 'm-b': [true, false], 'm-c': [false, false] });
    expect(why(observations, 'm-c')).toMatch(/its linearizable read failed/);
  });

  it('a learner: out, it serves no client requests', () => {
    const members = [...three(), { id: 'd', name: 'm-d', learner: true }];
    expect(fitness(round(members))['m-d']).toEqual([false, false]);
  });

  it('far behind the leader: out', () => {
    const observations = round(three({ a: { raftIndex: 10_000 }, b: { raftIndex: 10_000 }, c: { raftIndex: 5_000 } }));
    expect(snapshotOf(observations).verdict.reasons.map((r) => r.code)).toContain('MEMBER_BEHIND');
    expect(fitness(observations)['m-c']).toEqual([false, false]);
    expect(why(observations, 'm-c')).toBe('m-c cannot serve as it should (MEMBER_BEHIND)');
  });

  it('NOSPACE (cluster-wide): none taken out under quorum, all under strict', () => {
    const observations = round(three(), { alarmList: [{ memberId: 'a', alarm: 'NOSPACE' }] });
    expect(fitness(observations)).toEqual({ 'm-a': [true, false], 'm-b': [true, false], 'm-c': [true, false] });
  });

  it('CORRUPT (one member): that member is out, the others stay', () => {
    const observations = round(three(), { alarmList: [{ memberId: 'b', alarm: 'CORRUPT' }] });
    expect(fitness(observations)).toEqual({ 'm-a': [true, true], 'm-b': [false, false], 'm-c': [true, true] });
  });

  it("lists the reasons about the member and the cluster's, not another member's", () => {
    const snapshot = snapshotOf(round(three({ c: { state: 'unreachable' } })));
    const a = snapshot.view.members.find((m) => m.name === 'm-a')!;
    const c = snapshot.view.members.find((m) => m.name === 'm-c')!;
    expect(memberFitness(snapshot.verdict, a, 'quorum').reasons.map((r) => r.code)).toEqual([]);
    expect(memberFitness(snapshot.verdict, c, 'quorum').reasons.map((r) => r.code)).toEqual(['MEMBER_UNREACHABLE']);
  });
});
