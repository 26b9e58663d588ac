import type { Logger } from 'pino';
import type { ClusterConfig } from '../config/cluster-config.ts';
import { thresholdsOf, type ProbeCore } from '../core/probe-core.ts';
import { createVerdictLogger } from '../log/verdict-logger.ts';
import { CredentialMetrics } from '../metrics/credential-metrics.ts';
import { ProbeMetrics } from '../metrics/probe-metrics.ts';
import type { HistoryThresholds } from '../probe/history/history-checks.ts';
import type { RoundHistory } from '../probe/history/round-history.ts';
import type { Thresholds } from '../probe/member-checks.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import { recordExpiry, reloadReporter } from '../tls/reload-reporter.ts';
import { TlsFileReloader } from '../tls/tls-file-reloader.ts';
import type { TlsFiles, TlsMaterial } from '../tls/tls-files.ts';
import { fixedTls, type TlsProvider } from '../tls/tls-provider.ts';

/** What one cluster's runtime is built from: its settings and credentials, and how to build its prober. */
export interface ClusterRuntimeOptions {
  readonly config: ClusterConfig;
  /** etcd client TLS as read at start. */
  readonly tls: TlsMaterial;
  /** etcd client TLS files, re-read when they change; absent or null: `tls` is fixed. */
  readonly tlsFiles?: TlsFiles | null;
  /** The cluster's logger (a fleet's carries the cluster's name). */
  readonly logger: Logger;
  /** Epoch milliseconds. */
  readonly now: () => number;
  /** Whether its metrics include the process's own (Node's): once per process, so the single-cluster service only. */
  readonly processMetrics: boolean;
  /** Builds the cluster's prober over the TLS provider the runtime made. */
  readonly buildCore: (etcdTls: TlsProvider) => Promise<ProbeCore>;
  /** The history checks' limits, when a test needs them other than the fixed ones (ProbeCoreOptions). */
  readonly historyThresholds?: HistoryThresholds;
}

/**
 * One cluster as both modes run it: its prober (built on first use, closed by release()), its metrics and
 * credential metrics, its verdict log, and the step every round takes (probe, record, export the expiry
 * of the credentials in use, log). The single-cluster service holds one; a fleet holds one per cluster
 * (fleet/cluster-slot.ts). Whatever a round records is recorded here, so the two modes cannot drift apart.
 */
export class ClusterRuntime {
  readonly metrics: ProbeMetrics;
  readonly thresholds: Thresholds;
  readonly #credentials: CredentialMetrics;
  readonly #etcdTls: TlsProvider;
  readonly #logVerdict: (snapshot: Snapshot) => void;
  readonly #buildCore: (etcdTls: TlsProvider) => Promise<ProbeCore>;
  #core: Promise<ProbeCore> | null = null;
  #history: RoundHistory | null = null;

  constructor(options: ClusterRuntimeOptions) {
    this.thresholds = thresholdsOf(options.config, options.historyThresholds);
    this.metrics = new ProbeMetrics({ quotaBytes: options.config.quotaBytes, processMetrics: options.processMetrics });
    this.#credentials = new CredentialMetrics(this.metrics.registry);
    recordExpiry(this.#credentials, 'etcd-client', options.tls);
    this.#etcdTls = options.tlsFiles
      ? new TlsFileReloader(options.tlsFiles, options.tls, reloadReporter('etcd-client', options.logger, this.#credentials, options.now))
      : fixedTls(options.tls);
    this.#logVerdict = createVerdictLogger(options.logger);
    this.#buildCore = options.buildCore;
  }

  /** The credential metrics of this cluster's registry (the single-cluster listener records its own there too). */
  get credentials(): CredentialMetrics {
    return this.#credentials;
  }

  /** The rounds its prober keeps, or null before the prober is built (and after release()). */
  get history(): RoundHistory | null {
    return this.#history;
  }

  /** Whether its prober (clients, tunnels, history) is open now. */
  get open(): boolean {
    return this.#core !== null;
  }

  /** Its prober, built now if it is not open; a build that fails is tried again on the next call. */
  core(): Promise<ProbeCore> {
    if (this.#core === null) {
      const building = this.#buildCore(this.#etcdTls);
      this.#core = building;
      building.then(
        (core) => {
          if (this.#core === building) this.#history = core.prober.history;
        },
        () => {
          if (this.#core === building) this.#core = null;
        },
      );
    }
    return this.#core;
  }

  /**
   * One round: probe, record it in the metrics, export the expiry of the client credentials the source
   * obtained itself (a Secret's, or minted), log a changed verdict. With `release`, the member connections
   * are closed again once the round is recorded.
   */
  async round(options: { readonly release?: boolean } = {}): Promise<Snapshot> {
    const core = await this.core();
    const snapshot = await core.prober.round();
    if (options.release) await core.prober.releaseConnections();
    this.metrics.recordRound(snapshot);
    const credentials = core.source.credentials?.() ?? null;
    if (credentials) recordExpiry(this.#credentials, 'etcd-client', credentials);
    this.#logVerdict(snapshot);
    return snapshot;
  }

  /** Closes the prober and with it the clients and tunnels; the next round builds them again. */
  async release(): Promise<void> {
    const core = this.#core;
    this.#core = null;
    this.#history = null;
    if (core) await core.then((c) => c.close(), () => undefined);
  }
}
