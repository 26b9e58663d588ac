import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { MemberSeries } from './member-series.ts';
import { DataCheckMetrics } from './data-check-metrics.ts';
import { disruptionsAllowed } from '../probe/disruption.ts';
import { shortName } from '../probe/reason.ts';
import type { CacheOutcome } from '../probe/round-cache.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import { isAnsweringLeader } from '../probe/verdict.ts';
import type { HealthStatus } from '../probe/health-status.ts';

const STATUSES: readonly HealthStatus[] = ['healthy', 'degraded', 'unhealthy'];
const NON_COUNTER_TOTALS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];
const RPCS = ['status', 'health', 'member_list', 'alarm_list'] as const;
/** The `id` label of an RPC's duration when the endpoint did not say which member of the cluster it is. */
const UNKNOWN_MEMBER = 'unknown';


/** What the metrics report besides rounds: the settings that alert rules compare round facts with. */
export interface ProbeMetricsOptions {
  /** etcd's backend quota as configured (ETCD_PROBE_QUOTA_BYTES), exported for database-size alerts. */
  readonly quotaBytes: number;
  /** Also collect the process's own metrics (CPU, memory, event loop) here; false for a fleet's clusters, whose process is shared. Default true. */
  readonly processMetrics?: boolean;
}

/** The service's own Prometheus registry: the latest round's facts, and counters of rounds and requests. */
export class ProbeMetrics {
  readonly registry = new Registry();
  readonly #clusterStatus = new Gauge({ name: 'etcd_probe_cluster_status', help: 'The current verdict: 1 for the status it has, 0 for the others.', labelNames: ['status'], registers: [this.registry] });
  readonly #faultTolerance = new Gauge({ name: 'etcd_probe_quorum_fault_tolerance', help: 'How many more voting members may fail before quorum is lost.', registers: [this.registry] });
  readonly #hasLeader = new Gauge({ name: 'etcd_probe_cluster_has_leader', help: 'Whether the latest round found a leader (1) or none (0).', registers: [this.registry] });
  readonly #quota = new Gauge({ name: 'etcd_probe_quota_backend_bytes', help: "etcd's backend quota as configured for the probe (ETCD_PROBE_QUOTA_BYTES).", registers: [this.registry] });
  readonly #lastRound = new Gauge({ name: 'etcd_probe_last_round_timestamp_seconds', help: 'When the latest probe round finished (Unix time).', registers: [this.registry] });
  readonly #reasons = new Gauge({ name: 'etcd_probe_reason_active', help: 'Reasons of the current verdict, counted by code.', labelNames: ['code', 'severity'], registers: [this.registry] });
  readonly #up = this.#memberGauge('etcd_probe_member_up', 'Whether the member answered Status in the latest round.');
  readonly #healthy = this.#memberGauge('etcd_probe_member_healthy', 'Whether the member passed a linearizable read in the latest round.');
  readonly #isLeader = this.#memberGauge('etcd_probe_member_is_leader', 'Whether the member is the leader and answered this round (a leader only its followers vouch for is 0).');
  readonly #dbSize = this.#memberGauge('etcd_probe_member_db_size_bytes', 'Size of the backend database file.');
  readonly #dbInUse = this.#memberGauge('etcd_probe_member_db_size_in_use_bytes', 'Logically used size of the backend database.');
  readonly #raftIndex = this.#memberGauge('etcd_probe_member_raft_index', 'The member\'s raft committed index.');
  readonly #quotaEta = this.#memberGauge('etcd_probe_db_quota_eta_seconds', "Seconds until the member's database reaches the quota at its steady growth; only while the estimate is served (docs/metrics-and-alerts.md states the rule).");
  readonly #alarm = new Gauge({ name: 'etcd_probe_alarm_active', help: 'Active etcd alarms (1 per member and alarm).', labelNames: ['member', 'alarm'], registers: [this.registry] });
  readonly #roundDuration = new Histogram({ name: 'etcd_probe_round_duration_seconds', help: 'Duration of a probe round.', buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10], registers: [this.registry] });
  readonly #rpcDuration = new Histogram({ name: 'etcd_probe_rpc_duration_seconds', help: 'Duration of each etcd call of a round, failed ones included.', labelNames: ['id', 'rpc'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5], registers: [this.registry] });
  readonly #rounds = new Counter({ name: 'etcd_probe_rounds_total', help: 'Probe rounds by verdict.', labelNames: ['status'], registers: [this.registry] });
  readonly #disruptions = new Gauge({ name: 'etcd_probe_disruptions_allowed', help: 'How many voting members could stop now without losing quorum (0 when quorum is lost or its margin unknown).', registers: [this.registry] });
  readonly #leaderChanges = new Counter({ name: 'etcd_probe_leader_changes_total', help: 'Changes of leader seen between rounds, since the process started (not term jumps under the same leader, nor the change that ends a lost quorum).', registers: [this.registry] });
  readonly #memberTransitions = new Counter({ name: 'etcd_probe_member_transitions_total', help: 'Changes of a member\'s state between rounds, by the state it changed to.', labelNames: ['id', 'to'], registers: [this.registry] });
  // Cumulative per-member series, labelled by member ID (hex) and removed when the member is gone.
  readonly #rpcSeries = new MemberSeries(this.#rpcDuration);
  readonly #transitionSeries = new MemberSeries(this.#memberTransitions);
  readonly #requests = new Counter({
    name: 'etcd_probe_requests_total',
    help: 'Requests served from a probe round, by route and how the cache served them.',
    labelNames: ['route', 'cache'],
    registers: [this.registry],
    // Requests are counted in plain numbers and handed to prom-client when it is read: its own inc()
    // hashes the labels on every call, a cost on every health poll.
    collect: () => this.#flushRequests(),
  });

  readonly #dataCheck = new DataCheckMetrics(this.registry);

  constructor(options: ProbeMetricsOptions) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    // prom-client's gauges named *_total break the naming convention (promtool check metrics flags them,
    // prometheus/client_js#283); `sum without (type)` of their per-type siblings gives the same numbers.
    for (const name of NON_COUNTER_TOTALS) this.registry.removeSingleMetric(name);
    this.#quota.set(options.quotaBytes);
  }

  #memberGauge(name: string, help: string): Gauge<'member' | 'id'> {
    return new Gauge({ name, help, labelNames: ['member', 'id'], registers: [this.registry] });
  }

  /** Replaces the round facts with a new round's (members that left disappear from the series). */
  recordRound(snapshot: Snapshot): void {
    const { verdict, view } = snapshot;
    for (const s of STATUSES) this.#clusterStatus.set({ status: s }, s === verdict.status ? 1 : 0);
    this.#faultTolerance.set(verdict.quorum.faultTolerance);
    this.#hasLeader.set(verdict.leader === null ? 0 : 1);
    this.#disruptions.set(disruptionsAllowed(verdict));
    for (const change of snapshot.changes) {
      if (change.kind === 'leader') this.#leaderChanges.inc(change.elections);
      if (change.kind === 'member') {
        const labels = { id: change.member.id, to: change.to };
        this.#memberTransitions.inc(labels);
        this.#transitionSeries.wrote(change.member.id, labels);
      }
    }
    this.#lastRound.set(snapshot.checkedAt / 1000);
    this.#reasons.reset();
    for (const r of verdict.reasons) this.#reasons.inc({ code: r.code, severity: r.severity });
    for (const g of [this.#up, this.#healthy, this.#isLeader, this.#dbSize, this.#dbInUse, this.#raftIndex, this.#quotaEta]) g.reset();
    for (const m of view.members) {
      const labels = { member: shortName(m), id: m.id };
      this.#up.set(labels, m.reachable ? 1 : 0);
      this.#healthy.set(labels, m.healthy ? 1 : 0);
      this.#isLeader.set(labels, isAnsweringLeader(verdict, m.id) ? 1 : 0);
      if (m.status) {
        this.#dbSize.set(labels, m.status.dbSizeBytes);
        this.#dbInUse.set(labels, m.status.dbSizeInUseBytes);
        this.#raftIndex.set(labels, m.status.raftIndex);
      }
    }
    for (const e of verdict.quotaEta) {
      if (e.eta.served) this.#quotaEta.set({ member: shortName(e.member), id: e.member.id }, Math.round(e.eta.etaMs / 1000));
    }
    this.#alarm.reset();
    for (const a of view.alarms) {
      const member = view.members.find((m) => m.id === a.memberId);
      this.#alarm.set({ member: member ? shortName(member) : a.memberId, alarm: a.alarm }, 1);
    }
    this.#dataCheck.record(snapshot);
    this.#roundDuration.observe(snapshot.durationMs / 1000);
    this.#rounds.inc({ status: verdict.status });
    for (const o of snapshot.observations.endpoints) {
      // An endpoint that did not say which member it is counts as `unknown`: one series per RPC, never
      // one per endpoint (endpoints come from a tenant's API and are not bounded).
      const said = o.status.ok ? o.status.value.memberId : null;
      const id = said !== null && view.members.some((m) => m.id === said) ? said : UNKNOWN_MEMBER;
      const outcomes = [o.status, o.health, o.memberList, o.alarmList];
      outcomes.forEach((outcome, i) => {
        if (!outcome) return;
        const labels = { id, rpc: RPCS[i] as string };
        this.#rpcDuration.observe(labels, outcome.ms / 1000);
        this.#rpcSeries.wrote(id, labels);
      });
    }
    const current = new Set([UNKNOWN_MEMBER, ...view.members.map((m) => m.id)]);
    this.#rpcSeries.keepOnly(current);
    this.#transitionSeries.keepOnly(current);
  }

  /** Requests counted since the last read, by route, then by how the cache served them. */
  readonly #pendingRequests = new Map<string, Record<CacheOutcome, number>>();

  /** Counts a request served from the cache (a plain increment: this runs on every poll). */
  countRequest(route: string, cache: CacheOutcome): void {
    let counts = this.#pendingRequests.get(route);
    if (!counts) {
      counts = { hit: 0, stale: 0, miss: 0, coalesced: 0 };
      this.#pendingRequests.set(route, counts);
    }
    counts[cache] += 1;
  }

  #flushRequests(): void {
    for (const [route, counts] of this.#pendingRequests) {
      for (const cache of ['hit', 'stale', 'miss', 'coalesced'] as const) {
        // A series appears once it has been counted, as it did when prom-client counted each request.
        if (counts[cache] > 0) this.#requests.inc({ route, cache }, counts[cache]);
        counts[cache] = 0;
      }
    }
  }
}
