import type { MemberSource } from '../discovery/member-source.ts';
import { ClientPool } from './client-pool.ts';
import type { MemberView } from './cluster-view.ts';
import type { Thresholds } from './member-checks.ts';
import type { EndpointObservation, ListedMember } from './observations.ts';
import type { ProbeTarget } from './probe-target.ts';
import { buildSnapshot, type Snapshot } from './snapshot.ts';
import { RoundHistory, type HistoryLimits } from './history/round-history.ts';
import { recordOf } from './history/round-record.ts';
import { NO_MEMORY, remember, type LeaderMemory } from './leader-memory.ts';

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
  #previous: Snapshot | null = null;
  #memory: LeaderMemory = NO_MEMORY;
  readonly #history: RoundHistory;
  #sequence = 0;

  constructor(options: ProberOptions) {
    this.#options = options;
    this.#pool = new ClientPool((target) => options.source.connect(target));
    this.#history = new RoundHistory(options.history);
  }

  /** Runs one round and judges it. Never throws for anything etcd or the network does. */
  async round(): Promise<Snapshot> {
    // New credentials take effect for a whole round: no round mixes clients of old and new ones.
    if (this.#options.source.refreshCredentials?.()) this.#pool.reset();
    const startedAt = this.#options.now();
    const started = performance.now();
    const previous = this.#previous;
    const previousMembers = previous ? listedOf(previous.view.members) : [];
    const source = this.#options.source;
    // Discovery is refreshed while the members it knew are probed, so a round costs one deadline, not two.
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
    this.#pool.retain(probed);

    const observations = {
      startedAt,
      durationMs: performance.now() - started,
      endpoints: observed,
      previousMembers: previousMembers.length > 0 ? previousMembers : null,
      kube,
    };
    const judged = buildSnapshot({
      sequence: ++this.#sequence,
      mode: source.mode,
      observations,
      thresholds: this.#options.thresholds,
      recent: { memory: this.#memory, history: this.#history.records(startedAt - this.#history.limits.checksMs) },
      checkedAt: this.#options.now(),
    });
    const { verdict } = judged;
    this.#memory = remember(this.#memory, { startedAt, confirmed: verdict.quorum.confirmed, leader: verdict.leader });
    const failures = new Map(judged.view.members.flatMap((m) => (m.error ? [[m.id, m.error.message] as const] : [])));
    const changes = this.#history.add(recordOf(judged.view, verdict, judged.checkedAt), failures);
    const snapshot: Snapshot = { ...judged, changes };
    this.#previous = snapshot;
    return snapshot;
  }

  /** The recent rounds (read-only for everyone but the prober). */
  get history(): RoundHistory {
    return this.#history;
  }

  /** How many member clients are open (for leak checks). */
  get openClients(): number {
    return this.#pool.size;
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
