import { describe, expect, it } from 'vitest';
import { buildClusterView } from '../../src/probe/cluster-view.ts';
import { disruptionBudget, type MemberDisruption } from '../../src/probe/disruption.ts';
import type { RoundObservations } from '../../src/probe/observations.ts';
import { judge } from '../../src/probe/verdict.ts';
import { round, three, type FakeMember } from './observation-builders.ts';
import { TEST_THRESHOLDS } from './snapshot-builder.ts';

const NOW = 1_000_000;

function budget(observations: RoundObservations) {
  const view = buildClusterView(observations);
  const verdict = judge(view, TEST_THRESHOLDS, NOW);
  return disruptionBudget(view, verdict, TEST_THRESHOLDS, NOW);
}

/** member name → [stop safe, remove safe, status after stop, status after remove]. */
function answers(members: readonly MemberDisruption[]) {
  return Object.fromEntries(members.map((m) => [m.member.name, [m.stop.safe, m.remove.safe, m.stop.after.status, m.remove.after.status]]));
}

const codes = (m: MemberDisruption | undefined, action: 'stop' | 'remove') => (m ? m[action].reasons.map((r) => r.code).sort() : []);

describe('the disruption budget', () => {
  it('a healthy 3-member cluster: one may stop; each may stop or leave; stopping the leader costs an election', () => {
    const b = budget(round(three()));
    expect(b.disruptionsAllowed).toBe(1);
    expect(answers(b.members)).toEqual({
      'm-a': [true, true, 'degraded', 'healthy'],
      'm-b': [true, true, 'degraded', 'healthy'],
      'm-c': [true, true, 'degraded', 'healthy'],
    });
    const leader = b.members.find((m) => m.member.id === 'a');
    expect(codes(leader, 'stop')).toEqual(['LEADER_STOP_COSTS_ELECTION', 'MEMBER_UNREACHABLE']);
    expect(leader?.stop.reasons.find((r) => r.code === 'LEADER_STOP_COSTS_ELECTION')?.hint).toMatch(/etcdctl move-leader/);
    expect(codes(b.members[1], 'stop')).toEqual(['MEMBER_UNREACHABLE']);
    expect(b.members[1]?.stop.after.quorum).toMatchObject({ voting: 3, required: 2, healthyVoting: 2, faultTolerance: 0, confirmed: true });
    expect(b.members[1]?.remove.after.quorum).toMatchObject({ voting: 2, required: 2, healthyVoting: 2, faultTolerance: 0 });
  });

  it('one member down: none more may stop; the dead one may stop or leave, the others may not', () => {
    const b = budget(round(three({ c: { state: 'unreachable' } })));
    expect(b.disruptionsAllowed).toBe(0);
    expect(answers(b.members)).toEqual({
      'm-a': [false, false, 'unhealthy', 'unhealthy'],
      'm-b': [false, false, 'unhealthy', 'unhealthy'],
      'm-c': [true, true, 'degraded', 'healthy'],
    });
    expect(codes(b.members[1], 'stop')).toContain('QUORUM_LOST');
  });

  it('quorum lost: nothing is safe, and the budget is 0', () => {
    const b = budget(round(three({ a: { state: 'unhealthy' }, b: { state: 'unreachable' }, c: { state: 'unreachable' } }), { leader: null }));
    expect(b.disruptionsAllowed).toBe(0);
    expect(b.members.every((m) => !m.stop.safe && !m.remove.safe)).toBe(true);
  });

  it('an unknown margin (members etcd-probe cannot reach) allows no disruption', () => {
    const b = budget(round(three({ a: { state: 'unreachable' }, b: { state: 'unreachable' } })));
    expect(b.disruptionsAllowed).toBe(0);
    expect(b.members.find((m) => m.member.id === 'c')?.stop.safe).toBe(false);
  });

  it('five members, one down: one more may stop', () => {
    const five: FakeMember[] = ['1', '2', '3', '4', '5'].map((id) => ({ id, name: `m${id}`, state: id === '5' ? 'unreachable' : 'healthy' }));
    const b = budget(round(five, { leader: '1' }));
    expect(b.disruptionsAllowed).toBe(1);
    expect(b.members.map((m) => m.stop.safe)).toEqual([true, true, true, true, true]);
  });

  it('a learner may always stop or leave; it does not vote', () => {
    const b = budget(round([...three(), { id: 'd', name: 'm-d', learner: true }]));
    const learner = b.members.find((m) => m.member.id === 'd');
    expect([learner?.stop.safe, learner?.remove.safe]).toEqual([true, true]);
    expect(learner?.stop.after.quorum).toMatchObject({ voting: 3, healthyVoting: 3, faultTolerance: 1 });
  });

  it('an unstarted member counts as down: removing it restores the margin', () => {
    const b = budget(round([...three(), { id: 'd', state: 'unstarted' }]));
    expect(b.disruptionsAllowed).toBe(0);
    const unstarted = b.members.find((m) => m.member.id === 'd');
    expect(unstarted?.remove).toMatchObject({ safe: true, after: { status: 'healthy', quorum: { voting: 3, faultTolerance: 1 } } });
    expect(b.members.find((m) => m.member.id === 'b')?.stop.safe).toBe(false);
  });
});
