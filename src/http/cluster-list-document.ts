import type { ShardRef } from '../config/config.ts';
import type { ClusterSlot } from '../fleet/cluster-slot.ts';
import { disruptionsAllowed } from '../probe/disruption.ts';
import type { HealthStatus } from '../probe/health-status.ts';
import type { Snapshot } from '../probe/snapshot.ts';

/** Where a cluster stands in this replica: probed (a round is held), not checked yet here, or waiting to be probed at all. */
export type ClusterState = 'probed' | 'unchecked' | 'waiting';

/** One row of GET /clusters. */
export interface ClusterRow {
  readonly name: string;
  readonly state: ClusterState;
  /** Why it is not probed (provisioning, paused, deleting); null otherwise. */
  readonly waiting: string | null;
  /** Whether this replica owns it (keeps it warm and exports its metrics). */
  readonly owned: boolean;
  /** The verdict of its latest round here; null when there is none: not known, never "healthy". */
  readonly status: HealthStatus | null;
  readonly reasons: readonly string[];
  readonly quorum: { readonly voting: number; readonly required: number; readonly healthyVoting: number; readonly confirmed: boolean; readonly faultTolerance: number } | null;
  readonly disruptionsAllowed: number | null;
  readonly checkedAt: string | null;
  readonly ageSeconds: number | null;
  /** While its rounds keep reaching nothing: how many in a row, and until when its refresh is put off. */
  readonly backoff: { readonly failures: number; readonly until: string } | null;
  /** Its /healthz/etcd, with the name URL-encoded. */
  readonly href: string;
}

/** The path of a cluster's routes, its name encoded as one segment (`default/prod` as `default%2Fprod`). */
export function clusterPath(name: string): string {
  return `/clusters/${encodeURIComponent(name)}`;
}

type ProbedRow = Omit<ClusterRow, 'ageSeconds' | 'backoff'>;

/** The row of a round, made once per round (GET /clusters asks for every cluster's row per request). */
const probedRows = new WeakMap<Snapshot, ProbedRow>();

function probedRow(slot: ClusterSlot, snapshot: Snapshot): ProbedRow {
  let row = probedRows.get(snapshot);
  if (row) return row;
  const { verdict, checkedAtIso } = snapshot;
  const { quorum } = verdict;
  row = {
    ...baseOf(slot),
    state: 'probed',
    status: verdict.status,
    reasons: verdict.reasons.map((r) => r.code),
    quorum: { voting: quorum.voting, required: quorum.required, healthyVoting: quorum.healthyVoting, confirmed: quorum.confirmed, faultTolerance: quorum.faultTolerance },
    disruptionsAllowed: disruptionsAllowed(verdict),
    checkedAt: checkedAtIso,
  };
  probedRows.set(snapshot, row);
  return row;
}

function baseOf(slot: ClusterSlot) {
  const { entry } = slot;
  return { name: entry.name, waiting: entry.waiting, owned: slot.owned, href: `${clusterPath(entry.name)}/healthz/etcd` };
}

/** A fleet cluster as a row of /clusters, from the round it holds (if any), at `now`. */
export function clusterRow(slot: ClusterSlot, now: number): ClusterRow {
  const { entry } = slot;
  const round = entry.waiting === null ? slot.cache.peek() : null;
  const state = slot.backoff.state(now);
  const backoff = state ? { failures: state.failures, until: new Date(state.until).toISOString() } : null;
  if (!round) return { ...baseOf(slot), state: entry.waiting === null ? 'unchecked' : 'waiting', status: null, reasons: [], quorum: null, disruptionsAllowed: null, checkedAt: null, ageSeconds: null, backoff };
  return { ...probedRow(slot, round.value), ageSeconds: Math.max(0, Math.round((now - round.completedAt) / 100) / 10), backoff };
}

const RANK: Record<HealthStatus | 'unknown', number> = { unhealthy: 0, unknown: 1, degraded: 2, healthy: 3 };

/** Rows worst first (unhealthy, not known, degraded, healthy), then by name: the order of the fleet table. */
export function worstFirst(rows: readonly ClusterRow[]): ClusterRow[] {
  return [...rows].sort((a, b) => RANK[a.status ?? 'unknown'] - RANK[b.status ?? 'unknown'] || a.name.localeCompare(b.name));
}

/** The listing's state in a Cluster API fleet, or null for a clusters file. */
export interface DiscoveryState {
  readonly listedAt: string | null;
  readonly error: string | null;
  /** Listed Clusters not followed, by namespace and the bound that left them out (ETCD_PROBE_FLEET_MAX_CLUSTERS*). */
  readonly clustersLeftOut: readonly { readonly namespace: string; readonly count: number; readonly bound: 'namespace' | 'fleet' }[];
}

/** The GET /clusters document: every cluster (`rows` in name order, as Fleet.slots gives them), how many of each status, this replica's shard. */
export function clusterListDocument(rows: readonly ClusterRow[], shard: ShardRef, discovery: DiscoveryState | null) {
  const counts = { healthy: 0, degraded: 0, unhealthy: 0, unknown: 0 };
  for (const row of rows) counts[row.status ?? 'unknown']++;
  return { shard: `${shard.index}/${shard.count}`, discovery, counts, clusters: rows };
}
