import type { Logger } from 'pino';
import { ClusterRuntime } from '../cluster/cluster-runtime.ts';
import { buildProbeCore, type ProbeCore } from '../core/probe-core.ts';
import type { ProbeMetrics } from '../metrics/probe-metrics.ts';
import type { RoundHistory } from '../probe/history/round-history.ts';
import type { Thresholds } from '../probe/member-checks.ts';
import { RoundCache } from '../probe/round-cache.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import type { KubeConnection } from '../kube/kube-connection.ts';
import type { TlsProvider } from '../tls/tls-provider.ts';
import type { ClusterEntry } from './cluster-entry.ts';
import type { RoundLimiter } from './round-limiter.ts';

/** A round started this soon after a request asked about the cluster (or asked about since) is one a request waits for. */
const URGENT_WITHIN_MS = 1000;

/** What a slot is built with besides its entry. */
export interface SlotOptions {
  readonly limiter: RoundLimiter;
  readonly logger: Logger;
  /** Epoch milliseconds. */
  readonly now: () => number;
  /** The least time between forced (`?fresh`) rounds. */
  readonly minForcedIntervalMs: number;
  /** Whether this replica owns the cluster (keeps it warm, exports its metrics). */
  readonly owned: boolean;
  /**
   * Whether the member connections (port-forwards, etcd's TLS and HTTP/2) stay open between rounds. When
   * not, each round dials them and closes them when it ends: a round every refresh needs them for a
   * fraction of a second, and held they are most of what a cluster costs in memory.
   */
  readonly holdConnections: boolean;
  /** Builds a cluster's prober; buildProbeCore by default (tests hand in a scripted source). */
  readonly buildCore?: (entry: ClusterEntry, now: () => number, etcdTls: TlsProvider) => Promise<ProbeCore>;
  /** The management cluster connection every Cluster API cluster of the fleet shares (its owner is the fleet's caller). */
  readonly management?: KubeConnection;
}

function defaultCore(entry: ClusterEntry, now: () => number, etcdTls: TlsProvider, management: KubeConnection | undefined): Promise<ProbeCore> {
  return buildProbeCore({ config: entry.config, tls: entry.tls, etcdTls, now, inCluster: entry.inCluster, ...(management ? { management } : {}) });
}

/**
 * One cluster of a fleet in this process: its round cache (single flight, as in single-cluster mode),
 * its metrics, and its prober, built on the first round and closed again when the cluster goes idle
 * (`release()`): a cluster nobody asked about holds no clients or tunnels. Its rounds take a slot of
 * the fleet's limiter. The slot owns its prober and closes it.
 */
export class ClusterSlot {
  readonly entry: ClusterEntry;
  readonly owned: boolean;
  readonly cache: RoundCache<Snapshot>;
  readonly metrics: ProbeMetrics;
  readonly thresholds: Thresholds;
  readonly #options: SlotOptions;
  /** The cluster's prober, metrics, credential expiry and verdict log, as the single-cluster service has them. */
  readonly #runtime: ClusterRuntime;
  #askedAt: number;
  /** When a request last asked about the cluster (epoch ms; 0: never): its rounds go first in the limiter. */
  #demandAt = 0;
  #closed = false;

  constructor(entry: ClusterEntry, options: SlotOptions) {
    this.entry = entry;
    this.owned = options.owned;
    this.#options = options;
    this.#askedAt = options.now();
    const { buildCore, now, management } = options;
    this.#runtime = new ClusterRuntime({
      config: entry.config,
      tls: entry.tls,
      tlsFiles: entry.tlsFiles ?? null,
      logger: options.logger.child({ cluster: entry.name }),
      now,
      processMetrics: false,
      buildCore: (etcdTls) => (buildCore ? buildCore(entry, now, etcdTls) : defaultCore(entry, now, etcdTls, management)),
    });
    this.metrics = this.#runtime.metrics;
    this.thresholds = this.#runtime.thresholds;
    this.cache = new RoundCache<Snapshot>({
      load: () => {
        const since = options.now();
        return options.limiter.run(() => {
          if (this.#closed) return Promise.reject(new Error(`cluster ${this.entry.name} was removed from the fleet`));
          return this.#runtime.round({ release: !options.holdConnections });
        }, () => this.#demandAt >= since - URGENT_WITHIN_MS);
      },
      ttlMs: entry.config.cacheTtlMs,
      minForcedIntervalMs: options.minForcedIntervalMs,
      now: options.now,
    });
  }

  /** The rounds the cluster's prober keeps, or null before its first round (and after it went idle). */
  get history(): RoundHistory | null {
    return this.#runtime.history;
  }

  /** When someone last asked about the cluster (epoch ms). */
  get askedAt(): number {
    return this.#askedAt;
  }

  /** Whether its prober (clients, tunnels, history) is open now. */
  get open(): boolean {
    return this.#runtime.open;
  }

  /** Records that someone asked about the cluster now (keeps it from going idle). */
  touch(): void {
    this.#askedAt = this.#options.now();
    this.#demandAt = this.#askedAt;
  }

  /** Closes the prober (and with it the clients and tunnels) of a cluster nobody asked about since `idleMs`; true if it did. */
  async releaseIfIdle(idleMs: number): Promise<boolean> {
    if (this.owned || !this.#runtime.open || this.#options.now() - this.#askedAt < idleMs) return false;
    await this.cache.settle();
    if (this.#options.now() - this.#askedAt < idleMs) return false;
    await this.#runtime.release();
    return true;
  }

  /** Closes everything the slot holds; a round in flight ends first. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.cache.settle();
    await this.#runtime.release();
  }
}
