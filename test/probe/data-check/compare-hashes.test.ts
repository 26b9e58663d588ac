import { describe, expect, it } from 'vitest';
import { compareHashes, confirmedDiverged, pickRevision, type MemberHash } from '../../../src/probe/data-check/compare-hashes.ts';
import { probeError } from '../../../src/probe/outcome.ts';

function hashed(memberId: string, hash: string, compactRevision = '5'): MemberHash {
  return { memberId, outcome: { ok: true, value: { revision: '10', compactRevision, hash, currentRevision: '12' }, ms: 1 } };
}
function failed(memberId: string, message: string): MemberHash {
  return { memberId, outcome: { ok: false, error: probeError('ETCD_ERROR', message), ms: 1 } };
}
const states = (hashes: MemberHash[]) => compareHashes('10', hashes, 0).members.map((m) => `${m.memberId}:${m.state}`);

describe('pickRevision', () => {
  it('is the lowest revision among the members that answered, and null for none or an empty store', () => {
    expect(pickRevision([{ memberId: 'a', revision: '12' }, { memberId: 'b', revision: '9' }, { memberId: 'c', revision: null }])).toBe('9');
    expect(pickRevision([{ memberId: 'a', revision: '18446744073709551615' }, { memberId: 'b', revision: '18446744073709551614' }])).toBe('18446744073709551614');
    expect(pickRevision([{ memberId: 'a', revision: null }])).toBeNull();
    expect(pickRevision([{ memberId: 'a', revision: '1' }])).toBeNull();
  });
});

describe('compareHashes', () => {
  it.each([
    ['all equal', [hashed('a', '1'), hashed('b', '1'), hashed('c', '1')], 'consistent', ['a:agrees', 'b:agrees', 'c:agrees']],
    ['one differs', [hashed('a', '1'), hashed('b', '2'), hashed('c', '1')], 'diverged', ['a:agrees', 'b:diverged', 'c:agrees']],
    ['one failed, two agree', [hashed('a', '1'), failed('b', 'mvcc: required revision has been compacted'), hashed('c', '1')], 'partial', ['a:agrees', 'b:not-compared', 'c:agrees']],
    ['1 against 1: nobody named', [hashed('a', '1'), hashed('b', '2'), failed('c', 'timeout')], 'diverged', ['a:undecided', 'b:undecided', 'c:not-compared']],
    ['only one answered', [hashed('a', '1'), failed('b', 'x'), failed('c', 'y')], 'not-compared', ['a:not-compared', 'b:not-compared', 'c:not-compared']],
    // A member that compacted in between hashes differently without diverging: it is left out, never "diverged".
    ['another compact revision', [hashed('a', '1'), hashed('b', '7', '9'), hashed('c', '1')], 'partial', ['a:agrees', 'b:not-compared', 'c:agrees']],
    ['not asked', [hashed('a', '1'), { memberId: 'b', outcome: null }, hashed('c', '1')], 'partial', ['a:agrees', 'b:not-compared', 'c:agrees']],
  ] as const)('%s', (_name, hashes, outcome, expected) => {
    expect(compareHashes('10', [...hashes], 0).outcome).toBe(outcome);
    expect(states([...hashes])).toEqual(expected);
  });

  it('says why a member was not compared', () => {
    const got = compareHashes('10', [hashed('a', '1'), failed('b', 'mvcc: required revision has been compacted'), hashed('c', '1', '9'), hashed('d', '1')], 0);
    expect(got.members[1]?.why).toMatch(/HashKV failed: mvcc: required revision has been compacted/);
    expect(got.members[2]?.why).toMatch(/compact revision 9, the others from 5/);
  });

  it('is not-compared for every member when no revision was picked', () => {
    const got = compareHashes(null, [hashed('a', '1'), hashed('b', '1')], 0);
    expect(got.outcome).toBe('not-compared');
    expect(got.members.map((m) => m.state)).toEqual(['not-compared', 'not-compared']);
  });
});

describe('confirmedDiverged', () => {
  const once = compareHashes('10', [hashed('a', '1'), hashed('b', '2'), hashed('c', '1')], 0);
  const clean = compareHashes('10', [hashed('a', '1'), hashed('b', '1'), hashed('c', '1')], 0);
  it('names a member only when two comparisons in a row found it diverged', () => {
    expect(confirmedDiverged(null, once)).toEqual([]);
    expect(confirmedDiverged(clean, once)).toEqual([]);
    expect(confirmedDiverged(once, clean)).toEqual([]);
    expect(confirmedDiverged(once, once)).toEqual(['b']);
  });
});
