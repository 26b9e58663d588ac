import { describe, expect, it } from 'vitest';
import { REASONS, type ReasonCode } from '../../src/probe/reason-catalogue.ts';
import { reasonOrder } from '../../src/probe/reason-order.ts';
import { reason } from '../../src/probe/reason.ts';

const m = (name: string) => ({ member: { id: name, name } });

describe('reasonOrder', () => {
  it('puts a member down now before what the history says (issue 26: the live failure was listed last)', () => {
    const found = [
      reason('MEMBER_FLAPPING', 'x', m('m2')),
      reason('FREQUENT_LEADER_CHANGES', 'x'),
      reason('MEMBER_UNREACHABLE', 'x', m('m2')),
    ];
    expect(found.sort(reasonOrder).map((r) => r.code)).toEqual(['MEMBER_UNREACHABLE', 'FREQUENT_LEADER_CHANGES', 'MEMBER_FLAPPING']);
  });

  it('keeps severity first: a finding from history that is unhealthy would still lead a degraded one', () => {
    const found = [reason('MEMBER_UNREACHABLE', 'x', m('m1')), reason('LEARNER_PRESENT', 'x'), reason('QUORUM_LOST', 'x')];
    expect(found.sort(reasonOrder).map((r) => r.severity)).toEqual(['unhealthy', 'degraded', 'info']);
  });

  it('orders equal severities by the catalogue, not the alphabet, then by member', () => {
    const found = [reason('MEMBER_UNHEALTHY', 'x', m('m1')), reason('MEMBER_UNREACHABLE', 'x', m('m3')), reason('MEMBER_UNREACHABLE', 'x', m('m2'))];
    expect(found.sort(reasonOrder).map((r) => `${r.code}(${r.member?.name})`)).toEqual([
      'MEMBER_UNREACHABLE(m2)',
      'MEMBER_UNREACHABLE(m3)',
      'MEMBER_UNHEALTHY(m1)',
    ]);
  });

  it('marks exactly the findings that only read history', () => {
    const fromHistory = (Object.keys(REASONS) as ReasonCode[]).filter((c) => REASONS[c].fromHistory);
    expect(fromHistory).toEqual(['FREQUENT_LEADER_CHANGES', 'MEMBER_FLAPPING', 'DB_QUOTA_EXHAUSTION_SOON']);
  });
});
