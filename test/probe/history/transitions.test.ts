import { describe, expect, it } from 'vitest';
import { electionsBetween, transitionsBetween } from '../../../src/probe/history/transitions.ts';
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
      { kind: 'leader', at: 10_000, from: { id: 'a', name: 'm-a' }, to: { id: 'b', name: 'm-b' }, fromTerm: 2, toTerm: 3, elections: 1 },
    ]);
  });

  it('reports elections the rounds did not see from a term jump under the same leader', () => {
    expect(transitionsBetween(rec(0, { term: 4 }), rec(5, { term: 7 }), rec(0, { term: 4 }))).toEqual([
      { kind: 'leader', at: 5000, from: { id: 'a', name: 'm-a' }, to: { id: 'a', name: 'm-a' }, fromTerm: 4, toTerm: 7, elections: 3 },
    ]);
  });

  it('counts one election at least for a new leader, and none without terms', () => {
    expect(electionsBetween(rec(0, { leader: 'a', term: 5 }), rec(5, { leader: 'b', term: 5 }))).toBe(1);
    expect(electionsBetween(rec(0, { leader: null }), rec(5, { leader: 'b' }))).toBe(0);
  });

  it('has nothing to compare on the first round', () => {
    expect(transitionsBetween(null, rec(0), null)).toEqual([]);
  });
});
