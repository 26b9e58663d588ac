import { describe, expect, it } from 'vitest';
import { leaderChanged, transitionsBetween } from '../../../src/probe/history/transitions.ts';
import { rec } from './record-builders.ts';

describe('transitionsBetween', () => {
  it('sees nothing between two equal rounds', () => {
    expect(transitionsBetween(rec(0), rec(5), rec(0))).toEqual([]);
  });

  it('lists a verdict change, a member going unreachable with its code, and an alarm raised', () => {
    const after = rec(5, { status: 'degraded', states: { c: 'unreachable' }, alarms: ['b:NOSPACE'] });
    expect(transitionsBetween(rec(0), after, rec(0))).toEqual([
      { kind: 'verdict', at: 5000, from: 'healthy', to: 'degraded' },
      { kind: 'member', at: 5000, member: { id: 'c', name: 'm-c' }, from: 'healthy', to: 'unreachable', code: 'CONNECTION_REFUSED' },
      { kind: 'alarm', at: 5000, member: { id: 'b', name: 'm-b' }, alarm: 'NOSPACE', change: 'raised' },
    ]);
  });

  it('lists an alarm cleared and a member back', () => {
    const before = rec(0, { states: { c: 'unhealthy' }, alarms: ['b:NOSPACE'] });
    expect(transitionsBetween(before, rec(5), before)).toEqual([
      { kind: 'member', at: 5000, member: { id: 'c', name: 'm-c' }, from: 'unhealthy', to: 'healthy', code: null },
      { kind: 'alarm', at: 5000, member: { id: 'b', name: 'm-b' }, alarm: 'NOSPACE', change: 'cleared' },
    ]);
  });

  it('sees a leader change across rounds without a leader, from the last round that had one', () => {
    const lastLed = rec(0, { leader: 'a', term: 2 });
    const election = rec(5, { leader: null, status: 'degraded' });
    const after = rec(10, { leader: 'b', term: 3, status: 'degraded' });
    expect(transitionsBetween(election, after, lastLed)).toEqual([
      { kind: 'leader', at: 10_000, from: { id: 'a', name: 'm-a' }, to: { id: 'b', name: 'm-b' }, fromTerm: 2, toTerm: 3, elections: 1, afterQuorumLoss: false },
    ]);
  });

  it('calls a leader change that ended a lost quorum what it is, and counts no election for it', () => {
    const lastLed = rec(0, { leader: 'a', term: 2 });
    const after = rec(10, { leader: 'b', term: 12 });
    // The previous round is led too here, so that only the leader change is listed.
    expect(transitionsBetween(rec(5), after, lastLed, true)).toEqual([
      { kind: 'leader', at: 10_000, from: { id: 'a', name: 'm-a' }, to: { id: 'b', name: 'm-b' }, fromTerm: 2, toTerm: 12, elections: 0, afterQuorumLoss: true },
    ]);
  });

  it('records a term jump under the same leader as a term event, not a leader change (issue 26: 3.4 campaigns)', () => {
    expect(transitionsBetween(rec(0, { term: 2 }), rec(5, { term: 12 }), rec(0, { term: 2 }))).toEqual([
      { kind: 'term', at: 5000, leader: { id: 'a', name: 'm-a' }, fromTerm: 2, toTerm: 12 },
    ]);
  });

  it('sees a leader change only when the leader differs', () => {
    expect(leaderChanged(rec(0, { leader: 'a', term: 5 }), rec(5, { leader: 'b', term: 5 }))).toBe(true);
    expect(leaderChanged(rec(0, { leader: 'a', term: 5 }), rec(5, { leader: 'a', term: 9 }))).toBe(false);
    expect(leaderChanged(rec(0, { leader: null }), rec(5, { leader: 'b' }))).toBe(false);
  });

  it('has nothing to compare on the first round', () => {
    expect(transitionsBetween(null, rec(0), null)).toEqual([]);
  });
});
