/** A setting that was removed, by its variable, flag and clusters-file key, and what replaced it. */
export interface RemovedSetting {
  readonly variable: string;
  readonly flag: string;
  /** Its key in a clusters file, or null when it was never one. */
  readonly fileKey: string | null;
  /** What a user who still sets it needs to know. */
  readonly replacement: string;
}

const LEADER = 'FREQUENT_LEADER_CHANGES now comes at a fixed 4 leader elections in 15m, the etcd monitoring mixin\'s etcdHighNumberOfLeaderChanges (docs/reasons.md)';
const FLAP = 'MEMBER_FLAPPING now comes at a fixed 4 state changes in 10m (docs/reasons.md)';

// The values named here are the constants of probe/history/history-checks.ts, config/config.ts and
// fleet/fleet.ts (test/config/removed-settings.test.ts holds them to each other).

/** Settings that became constants: still set, each is a configuration error naming what replaced it. */
export const REMOVED_SETTINGS: readonly RemovedSetting[] = [
  { variable: 'ETCD_PROBE_LEADER_CHANGES', flag: 'leader-changes', fileKey: 'leaderChanges', replacement: LEADER },
  { variable: 'ETCD_PROBE_LEADER_CHANGES_WINDOW', flag: 'leader-changes-window', fileKey: 'leaderChangesWindow', replacement: LEADER },
  { variable: 'ETCD_PROBE_FLAP_CHANGES', flag: 'flap-changes', fileKey: 'flapChanges', replacement: FLAP },
  { variable: 'ETCD_PROBE_FLAP_WINDOW', flag: 'flap-window', fileKey: 'flapWindow', replacement: FLAP },
  {
    variable: 'ETCD_PROBE_STALL_ROUNDS',
    flag: 'stall-rounds',
    fileKey: 'stallRounds',
    replacement: 'MEMBER_STALLED now comes after a fixed 3 rounds (spanning at least 10s) without the applied index moving (docs/reasons.md)',
  },
  {
    variable: 'ETCD_PROBE_HISTORY_MAX_BYTES',
    flag: 'history-max-bytes',
    fileKey: 'historyMaxBytes',
    replacement: "a cluster's history is capped at a fixed 16MiB (24h of 5s rounds of 3 members); ETCD_PROBE_HISTORY_WINDOW says how far back it reaches",
  },
  {
    variable: 'ETCD_PROBE_IDLE_CLOSE',
    flag: 'idle-close',
    fileKey: null,
    replacement: 'a fleet cluster this replica does not own now closes its clients after a fixed 5m without a request',
  },
];

/** The problem to report about a removed setting: "was removed: <what replaced it>". */
export function removedProblem(removed: RemovedSetting): string {
  return `was removed: ${removed.replacement}`;
}
