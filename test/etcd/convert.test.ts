import type { IAlarmMember, IMemberListResponse, IStatusResponse } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { alarmsFromStatusErrors, toAlarmEntries, toMemberListing, toMemberStatus } from '../../src/etcd/convert.ts';

const HEADER = { cluster_id: '13455796455940752355', member_id: '443629905751424238', revision: '1', raft_term: '2' };

/** A Status response as etcd 3.4.23 answered it, captured through etcd3. */
function statusResponse(changes: Partial<IStatusResponse> = {}): IStatusResponse {
  return {
    errors: [],
    header: { ...HEADER },
    version: '3.4.23',
    dbSize: '20480',
    leader: '443629905751424238',
    raftIndex: '4',
    raftTerm: '2',
    raftAppliedIndex: '4',
    dbSizeInUse: '16384',
    isLearner: false,
    ...changes,
  };
}

describe('toMemberStatus', () => {
  it('converts a real Status response, IDs in hex and sizes as numbers', () => {
    expect(toMemberStatus(statusResponse())).toEqual({
      clusterId: 'babc9795b64f03e3',
      memberId: '628170c800dbcee',
      version: '3.4.23',
      dbSizeBytes: 20480,
      dbSizeInUseBytes: 16384,
      dbSizeQuotaBytes: null,
      leaderId: '628170c800dbcee',
      raftIndex: 4,
      raftAppliedIndex: 4,
      raftTerm: 2,
      isLearner: false,
      revision: '1',
      errors: [],
      alarms: [],
    });
  });

  it('turns leader 0 into no leader', () => {
    expect(toMemberStatus(statusResponse({ leader: '0' })).leaderId).toBeNull();
  });

  it('keeps the learner flag and large indexes', () => {
    const status = toMemberStatus(statusResponse({ isLearner: true, raftIndex: '123456789012', raftAppliedIndex: '123456789000' }));
    expect(status.isLearner).toBe(true);
    expect(status.raftIndex).toBe(123_456_789_012);
    expect(status.raftAppliedIndex).toBe(123_456_789_000);
  });

  it('keeps the errors as written and reads the alarms out of them', () => {
    const errors = ['memberID:443629905751424238 alarm:NOSPACE ', 'etcdserver: no leader'];
    const status = toMemberStatus(statusResponse({ errors }));
    expect(status.errors).toEqual(errors);
    expect(status.alarms).toEqual([{ memberId: '628170c800dbcee', alarm: 'NOSPACE' }]);
  });

  it('copies the errors instead of sharing the response array', () => {
    const response = statusResponse({ errors: ['etcdserver: no leader'] });
    const status = toMemberStatus(response);
    response.errors.push('later');
    expect(status.errors).toEqual(['etcdserver: no leader']);
  });
});

describe('alarmsFromStatusErrors', () => {
  it('reads NOSPACE and CORRUPT alarms of several members', () => {
    expect(
      alarmsFromStatusErrors([
        'memberID:443629905751424238 alarm:NOSPACE ',
        'memberID:18446744073709551615 alarm:CORRUPT ',
      ]),
    ).toEqual([
      { memberId: '628170c800dbcee', alarm: 'NOSPACE' },
      { memberId: 'ffffffffffffffff', alarm: 'CORRUPT' },
    ]);
  });

  it.each([
    ['a non-alarm error', 'etcdserver: no leader'],
    ['the NONE alarm', 'memberID:443629905751424238 alarm:NONE '],
    ['an unknown alarm', 'memberID:443629905751424238 alarm:SOMETHING '],
    ['a hex member ID', 'memberID:628170c800dbcee alarm:NOSPACE '],
  ])('ignores %s', (_what, text) => {
    expect(alarmsFromStatusErrors([text])).toEqual([]);
  });

  it('returns nothing for no errors', () => {
    expect(alarmsFromStatusErrors([])).toEqual([]);
  });
});

describe('toMemberListing', () => {
  it('converts a real MemberList response', () => {
    const response: IMemberListResponse = {
      members: [
        { peerURLs: ['http://127.0.0.1:32380'], clientURLs: ['http://127.0.0.1:32379'], ID: '443629905751424238', name: 'm1', isLearner: false },
      ],
      header: { ...HEADER },
    };
    expect(toMemberListing(response)).toEqual({
      clusterId: 'babc9795b64f03e3',
      memberId: '628170c800dbcee',
      members: [
        { id: '628170c800dbcee', name: 'm1', peerURLs: ['http://127.0.0.1:32380'], clientURLs: ['http://127.0.0.1:32379'], isLearner: false },
      ],
    });
  });

  it('keeps a learner, and a member that has not started (no name, no client URLs)', () => {
    const response: IMemberListResponse = {
      members: [
        { peerURLs: ['https://10.0.0.2:2380'], clientURLs: ['https://10.0.0.2:2379'], ID: '10501334649042878790', name: 'm2', isLearner: true },
        { peerURLs: ['https://10.0.0.3:2380'], clientURLs: [], ID: '1', name: '', isLearner: false },
      ],
      header: { ...HEADER },
    };
    expect(toMemberListing(response).members).toEqual([
      { id: BigInt('10501334649042878790').toString(16), name: 'm2', peerURLs: ['https://10.0.0.2:2380'], clientURLs: ['https://10.0.0.2:2379'], isLearner: true },
      { id: '1', name: '', peerURLs: ['https://10.0.0.3:2380'], clientURLs: [], isLearner: false },
    ]);
  });

  it('reads a missing learner flag (older etcd) as false', () => {
    const member = { peerURLs: [], clientURLs: [], ID: '1', name: 'old' } as unknown as IMemberListResponse['members'][number];
    expect(toMemberListing({ members: [member], header: { ...HEADER } }).members[0]?.isLearner).toBe(false);
  });
});

describe('toAlarmEntries', () => {
  it('converts alarm members as etcd3 names them', () => {
    const alarms: IAlarmMember[] = [
      { memberID: '443629905751424238', alarm: 'Nospace' },
      { memberID: '18446744073709551615', alarm: 'Corrupt' },
    ];
    expect(toAlarmEntries(alarms)).toEqual([
      { memberId: '628170c800dbcee', alarm: 'NOSPACE' },
      { memberId: 'ffffffffffffffff', alarm: 'CORRUPT' },
    ]);
  });

  it('drops None and unknown kinds', () => {
    const alarms = [
      { memberID: '1', alarm: 'None' },
      { memberID: '2', alarm: 'Somethingnew' },
      { memberID: '3', alarm: 'Nospace' },
    ] as unknown as IAlarmMember[];
    expect(toAlarmEntries(alarms)).toEqual([{ memberId: '3', alarm: 'NOSPACE' }]);
  });

  it('returns nothing for no alarms', () => {
    expect(toAlarmEntries([])).toEqual([]);
  });
});
