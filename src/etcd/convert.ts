import type { IAlarmMember, IHashKVResponse, IMemberListResponse, IStatusResponse } from 'etcd3';
import { NO_ID, hexId } from '../probe/member-id.ts';
import type { AlarmEntry, AlarmKind, KvHash, ListedMember, MemberListing, MemberStatus } from '../probe/observations.ts';

const ALARM_KINDS: ReadonlySet<string> = new Set<AlarmKind>(['NOSPACE', 'CORRUPT']);

function toNumber(decimal: string): number {
  return Number(decimal);
}

/** Alarms in Status's `errors`, written by etcd as `memberID:<decimal> alarm:<NAME> `. */
export function alarmsFromStatusErrors(errors: readonly string[]): AlarmEntry[] {
  const alarms: AlarmEntry[] = [];
  for (const text of errors) {
    const match = /memberID:(\d+)\s+alarm:([A-Z]+)/.exec(text);
    if (match && ALARM_KINDS.has(match[2] as string)) {
      alarms.push({ memberId: hexId(match[1] as string), alarm: match[2] as AlarmKind });
    }
  }
  return alarms;
}

/** Maintenance.Status's response in the project's terms. */
export function toMemberStatus(response: IStatusResponse & { readonly dbSizeQuota?: number | null }): MemberStatus {
  const leader = hexId(response.leader);
  return {
    clusterId: hexId(response.header.cluster_id),
    memberId: hexId(response.header.member_id),
    version: response.version,
    dbSizeBytes: toNumber(response.dbSize),
    dbSizeInUseBytes: toNumber(response.dbSizeInUse),
    dbSizeQuotaBytes: response.dbSizeQuota ?? null,
    leaderId: leader === NO_ID ? null : leader,
    raftIndex: toNumber(response.raftIndex),
    raftAppliedIndex: toNumber(response.raftAppliedIndex),
    raftTerm: toNumber(response.raftTerm),
    isLearner: response.isLearner,
    revision: String(response.header.revision),
    errors: [...response.errors],
    alarms: alarmsFromStatusErrors(response.errors),
  };
}

/** Cluster.MemberList's response in the project's terms. */
export function toMemberListing(response: IMemberListResponse): MemberListing {
  return {
    clusterId: hexId(response.header.cluster_id),
    memberId: hexId(response.header.member_id),
    members: response.members.map(
      (m): ListedMember => ({
        id: hexId(m.ID),
        name: m.name,
        peerURLs: [...m.peerURLs],
        clientURLs: [...m.clientURLs],
        isLearner: m.isLearner === true,
      }),
    ),
  };
}

/** Maintenance.Alarm's members in the project's terms; unknown alarm kinds are dropped. */
export function toAlarmEntries(alarms: readonly IAlarmMember[]): AlarmEntry[] {
  return alarms
    .filter((a) => ALARM_KINDS.has(String(a.alarm).toUpperCase()))
    .map((a) => ({ memberId: hexId(a.memberID), alarm: String(a.alarm).toUpperCase() as AlarmKind }));
}

/** Maintenance.HashKV's response in the project's terms (uint64s and the uint32 hash as decimal strings). */
export function toKvHash(revision: string, response: IHashKVResponse): KvHash {
  return {
    revision,
    compactRevision: String(response.compact_revision),
    hash: String(response.hash),
    currentRevision: String(response.header.revision),
  };
}
