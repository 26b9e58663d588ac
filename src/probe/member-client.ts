import type { AlarmEntry, HealthRead, KvHash, MemberListing, MemberStatus } from './observations.ts';
import type { Outcome } from './outcome.ts';

/** The four read-only calls a probe round makes to one member; each has its own deadline and never throws. */
export interface MemberClient {
  /** Maintenance.Status. */
  status(): Promise<Outcome<MemberStatus>>;
  /** A linearizable Range of key `health`, as `etcdctl endpoint health` does. */
  healthRead(): Promise<Outcome<HealthRead>>;
  /** Cluster.MemberList. */
  memberList(): Promise<Outcome<MemberListing>>;
  /** Maintenance.Alarm with action GET: a raft proposal, so it needs quorum. */
  alarmList(): Promise<Outcome<readonly AlarmEntry[]>>;
  /**
   * Maintenance.HashKV at one revision (a read of the member's whole keyspace, for the divergence check,
   * never in a probe round); its deadline is the caller's, as the call is slow on a large keyspace.
   */
  hashKv?(revision: string, timeoutMs: number): Promise<Outcome<KvHash>>;
  /** Closes the client's connections but not the client: its next call dials again. Resolves once they are down. */
  release(): Promise<void>;
  /** Frees the client's channels; it is not used afterwards. */
  close(): void;
}
