import { describe, expect, it } from 'vitest';
import { quorumSentence } from '../../src/probe/quorum-sentence.ts';
import { modelOf, snapshotOf } from '../http/status-page/snapshot-builder.ts';
import { three } from './observation-builders.ts';

function sentence(...args: Parameters<typeof snapshotOf>): string {
  return quorumSentence(modelOf(snapshotOf(...args)).health);
}

describe('quorumSentence', () => {
  it.each([
    ['all healthy', three(), '3 of 3 voting members healthy, can lose 1 more'],
    ['one down', three({ c: { state: 'unreachable' } }), '2 of 3 voting members healthy, can lose 0 more'],
    [
      'two down',
      three({ a: { state: 'unhealthy' }, b: { state: 'unreachable' }, c: { state: 'unreachable' } }),
      '1 of 3 voting members answer, 2 needed: quorum lost',
    ],
    [
      'two not probed (they may still vote)',
      three({ b: { state: 'unprobed' }, c: { state: 'unprobed' } }),
      '1 of 3 voting members healthy, 2 needed: a read passed consensus, the others could not be checked',
    ],
    [
      'an election (a majority answers, no read passes)',
      three({ a: { state: 'unreachable' }, b: { state: 'unhealthy' }, c: { state: 'unhealthy' } }),
      '2 of 3 voting members answer, 2 needed, but no read passed consensus: no leader confirmed yet',
    ],
    [
      'a learner',
      [...three(), { id: 'd', name: 'm-d', learner: true }],
      '3 of 3 voting members healthy, can lose 1 more (plus 1 learner, which does not vote)',
    ],
    [
      'two learners',
      [...three(), { id: 'd', name: 'm-d', learner: true }, { id: 'e', name: 'm-e', learner: true }],
      '3 of 3 voting members healthy, can lose 1 more (plus 2 learners, which do not vote)',
    ],
  ] as const)('%s', (_name, members, expected) => {
    expect(sentence(members)).toBe(expected);
  });

  it('says quorum is unknown, not "0 of 0", when nothing answered', () => {
    expect(sentence([], { deadEndpoints: ['https://x:2379'] })).toBe('No member answered, so quorum is unknown');
  });

  it('says it cannot count when members answered but none listed the membership', () => {
    expect(sentence(three({ a: { memberListFails: true }, b: { memberListFails: true }, c: { memberListFails: true } }))).toBe(
      'The membership is unknown, so quorum cannot be counted',
    );
  });
});
