import { describe, expect, it } from 'vitest';
import { leaderSentence } from '../../src/probe/leader-sentence.ts';
import type { QuorumFacts } from '../../src/probe/quorum.ts';

const quorum = (confirmed: boolean): QuorumFacts => ({ members: 3, voting: 3, required: 2, answering: 2, healthyVoting: confirmed ? 2 : 0, confirmed, faultTolerance: 0 });

describe('leaderSentence: only a leader that answered is ok', () => {
  it.each([
    ['a leader that answered', { id: 'a', name: 'm-a', reachable: true, term: 2 }, true, { ok: true, text: 'm-a' }],
    [
      'a leader only its followers vouch for',
      { id: 'a', name: 'm-a', reachable: false, term: 2 },
      true,
      { ok: false, text: "m-a leads by its followers' account (a read passed consensus), but does not answer etcd-probe" },
    ],
    ['an unstarted-looking leader without a name', { id: 'a', name: '', reachable: true, term: 2 }, true, { ok: true, text: 'member a' }],
    ['no leader, a read passed (the leader changed mid-round)', null, true, { ok: false, text: 'none named: the leader changed during this round (a read passed consensus)' }],
    ['no leader, no read passed', null, false, { ok: false, text: 'no leader confirmed this round' }],
  ] as const)('%s', (_name, leader, confirmed, expected) => {
    expect(leaderSentence({ leader, quorum: quorum(confirmed) })).toEqual(expected);
  });
});
