import { ClientPool } from './client-pool.ts';
import type { DataFindings } from './data-check/data-checks.ts';
import type { DataCheckMember } from './data-check/run-data-check.ts';
import type { MemberView } from './cluster-view.ts';
import type { Thresholds } from './member-checks.ts';
import type { MemberSource } from './member-source.ts';
import type { EndpointObservation, ListedMember } from './observations.ts';
import type { ProbeTarget } from './probe-target.ts';
import { RoundJudge } from './round-judge.ts';
import type { Snapshot } from './snapshot.ts';
import type { HistoryLimits, RoundHistory } from './history/round-history.ts';

/** What a prober needs: where members are and how to reach them, the limits to judge by, and a clock. */
export interface ProberOptions {
  readonly source: MemberSource;
  readonly thresholds: Thresholds;
  /** Epoch milliseconds. */
  readonly now: () => number;
  /** How much round history to keep (the verdict's history checks and GET /history read it). */
  readonly history: HistoryLimits;
}

function listedOf(members: readonly MemberView[]): ListedMember[] {
  return members
    .filter((m) => m.listed)
    .map(({ id, name, peerURLs, clientURLs, isLearner }) => ({ id, name, peerURLs, clientURLs, isLearner }));
}

function mergeListed(observations: readonly EndpointObservation[]): ListedMember[] {
  const byId = new Map<string, ListedMember>();
  for (const o of observations) {
    if (o.memberList.ok) for (const m of o.memberList.value.members) if (!byId.has(m.id)) byId.set(m.id, m);
  }
  return [...byId.values()];
}

/**
 * Runs probe rounds: every target in parallel, four read-only calls each (the alarm list from one
 * target only: it is a raft proposal), then a second wave for members that the member lists revealed.
 * Owns the clients; close() closes them.
 */
export class Prober {
  readonly #options: ProberOptions;
  readonly #pool: ClientPool;
  readonly #judge: RoundJudge;
  /** The targets the last round probed, for the divergence check. */
  #lastTargets: readonly ProbeTarget[] = [];

  constructor(options: ProberOptions) {
    this.#options = options;
    this.#pool = new ClientPool((target) => options.source.connect(target));
    this.#judge = new RoundJudge({ thresholds: options.thresholds, history: options.history, mode: options.source.mode });
  }

  /** Runs one round and judges it. Never throws for anything etcd or the network does. */
  async round(): Promise<Snapshot> {
    const startedAt = this.#options.now();
    const started = performance.now();
    const previous = this.#judge.previous;
    const previousMembers = previous ? listedOf(previous.view.members) : [];
    const source = this.#options.source;
    // Discovery is refreshed while the members it knew are probed, so a round costs one deadline, not two.
    // New credentials show as new target keys (MemberSource): the clients of the old keys are closed below.
    const refreshing = source.refresh ? source.refresh() : Promise.resolve(null);
    const first = await source.targets(previousMembers);
    let alarmKey = this.#alarmTarget(first, previous);
    const observed = await Promise.all(first.map((t) => this.#probe(t, t.key === alarmKey)));
    const kube = await refreshing;
    const probed = new Set(first.map((t) => t.key));
    const more = (await source.targets(mergeListed(observed))).filter((t) => !probed.has(t.key));
    // Nobody was asked for the alarm list in the first wave (nothing was known yet): ask in the second.
    if (alarmKey === null) alarmKey = this.#alarmTarget(more, previous);
    observed.push(...(await Promise.all(more.map((t) => this.#probe(t, t.key === alarmKey)))));
    for (const t of more) probed.add(t.key);
    // A client whose Status timed out is redialled next round: after a black-holed link heals, its old
    // TCP connection can stay stalled for many seconds (retransmission backoff) while a new one works.
    const stalled = observed.filter((o) => !o.status.ok && o.status.error.code === 'TIMEOUT').map((o) => o.target.key);
    this.#pool.retain(new Set([...probed].filter((key) => !stalled.includes(key))));
    this.#lastTargets = [...first, ...more].filter((t) => !stalled.includes(t.key));

    const observations = {
      startedAt,
      durationMs: performance.now() - started,
      endpoints: observed,
      previousMembers: previousMembers.length > 0 ? previousMembers : null,
      kube,
    };
    return this.#judge.judge(observations, this.#options.now());
  }

  /**
   * The members to compare data of: one client per member that answered Status in the last round, of
   * the cluster the verdict judged (the pool's own clients: no extra connections).
   */
  dataCheckMembers(): DataCheckMember[] {
    const previous = this.#judge.previous;
    if (!previous) return [];
    const byMember = new Map<string, DataCheckMember>();
    for (const target of this.#lastTargets) {
      const endpoint = previous.view.endpoints.find((e) => e.endpoint === target.endpoint);
      if (!endpoint?.reachable || endpoint.memberId === null || endpoint.clusterId !== previous.view.clusterId) continue;
      if (!byMember.has(endpoint.memberId)) byMember.set(endpoint.memberId, { memberId: endpoint.memberId, client: this.#pool.clientFor(target) });
    }
    return [...byMember.values()];
  }

  /** Hands the divergence check's latest findings to the verdict of the rounds that follow. */
  set dataFindings(findings: DataFindings | null) {
    this.#judge.data = findings;
  }

  /** The recent rounds (read-only for everyone but the prober). */
  get history(): RoundHistory {
    return this.#judge.history;
  }

  /** How many member clients are open (for leak checks). */
  get openClients(): number {
    return this.#pool.size;
  }

  /** Closes the member clients' connections, keeping the clients: the next round dials again. */
  releaseConnections(): Promise<void> {
    return this.#pool.release();
  }

  /** Closes every client. */
  close(): void {
    this.#pool.close();
  }

  // The alarm list goes to one endpoint: the last leader's if it answered, else the first that did.
  #alarmTarget(targets: readonly ProbeTarget[], previous: Snapshot | null): string | null {
    const endpoints = previous?.view.endpoints ?? [];
    const leaderId = previous?.verdict.leader?.id;
    const preferred =
      endpoints.find((e) => e.reachable && e.memberId === leaderId) ?? endpoints.find((e) => e.reachable && e.clusterId === previous?.view.clusterId);
    const match = preferred && targets.find((t) => t.endpoint === preferred.endpoint);
    return (match ?? targets[0])?.key ?? null;
  }

  async #probe(target: ProbeTarget, askAlarms: boolean): Promise<EndpointObservation> {
    const client = this.#pool.clientFor(target);
    const [status, health, memberList, alarmList] = await Promise.all([
      client.status(),
      client.healthRead(),
      client.memberList(),
      askAlarms ? client.alarmList() : null,
    ]);
    return { target, status, health, memberList, alarmList };
  }
}
