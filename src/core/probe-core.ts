import type { ClusterConfig } from '../config/cluster-config.ts';
import type { InClusterAccess } from '../config/config.ts';
import { createSource } from '../discovery/create-source.ts';
import type { DiscoveredSource } from '../discovery/discovered-source.ts';
import type { HistoryLimits } from '../probe/history/round-history.ts';
import type { KubeConnection } from '../kube/kube-connection.ts';
import { HISTORY_THRESHOLDS, type HistoryThresholds } from '../probe/history/history-checks.ts';
import type { Thresholds } from '../probe/member-checks.ts';
import { DataChecker } from '../probe/data-check/data-checker.ts';
import { Prober } from '../probe/prober.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';
import { fixedTls, type TlsProvider } from '../tls/tls-provider.ts';

/** What the prober is built from; the clock and the member source can be injected. */
export interface ProbeCoreOptions {
  readonly config: ClusterConfig;
  /** etcd client TLS as read at start. */
  readonly tls: TlsMaterial;
  /** etcd client TLS re-read when its files change; absent: `tls` is fixed. */
  readonly etcdTls?: TlsProvider;
  /** Epoch milliseconds; defaults to Date.now. */
  readonly now?: () => number;
  /** Where the members are and how to reach them; defaults to the source the config selects. */
  readonly source?: DiscoveredSource;
  /** The API server and service-account files when a setting says `in-cluster`. */
  readonly inCluster?: InClusterAccess | null;
  /** A management cluster connection shared by the caller (a Cluster API fleet); one is made from config otherwise. */
  readonly management?: KubeConnection;
  /** The divergence check's interval when ETCD_PROBE_DATA_CHECK_INTERVAL is unset: 5m alone, 0 (off) in a fleet; 0 for a one-shot check. */
  readonly dataCheckDefaultMs?: number;
  /** The history checks' limits; HISTORY_THRESHOLDS (fixed constants) but in tests that need them short or high. */
  readonly historyThresholds?: HistoryThresholds;
}

/** The divergence check's default interval for one cluster served alone. */
export const DATA_CHECK_DEFAULT_MS = 5 * 60_000;

/** A prober and the member source it reads, built from config; `close()` releases both. */
export interface ProbeCore {
  readonly prober: Prober;
  readonly source: DiscoveredSource;
  /** The divergence check on its schedule, or null when it is off. */
  readonly dataChecker: DataChecker | null;
  close(): Promise<void>;
}

/** The limits the verdict judges a round by: the settings, and the history checks' fixed limits (tests may pass their own). */
export function thresholdsOf(config: ClusterConfig, history: HistoryThresholds = HISTORY_THRESHOLDS): Thresholds {
  return {
    quotaBytes: config.quotaBytes,
    maxRaftGap: config.maxRaftGap,
    nodeGraceMs: config.nodeGraceMs,
    electionGraceMs: config.electionGraceMs,
    ...history,
    quotaEtaThresholdMs: config.quotaEtaThresholdMs,
    quotaEtaWindowMs: config.quotaEtaWindowMs,
  };
}

/** How much round history the prober keeps, as configured: at least as far back as the verdict's checks look. */
export function historyLimitsOf(config: ClusterConfig, history: HistoryThresholds = HISTORY_THRESHOLDS): HistoryLimits {
  return {
    windowMs: config.historyWindowMs,
    maxBytes: config.historyMaxBytes,
    checksMs: Math.max(history.leaderChangesWindowMs, history.flapWindowMs, config.quotaEtaWindowMs),
  };
}

/**
 * Builds the prober the way every command does (the server and `etcd-probe check`), so that how the
 * member source is chosen from config lives in one place.
 */
export async function buildProbeCore(options: ProbeCoreOptions): Promise<ProbeCore> {
  const { config } = options;
  const now = options.now ?? Date.now;
  const source = options.source ?? (await createSource({ config, tls: options.etcdTls ?? fixedTls(options.tls), now, inCluster: options.inCluster ?? null, ...(options.management ? { management: options.management } : {}) }));
  const prober = new Prober({ source, thresholds: thresholdsOf(config, options.historyThresholds), history: historyLimitsOf(config, options.historyThresholds), now });
  const intervalMs = config.dataCheckIntervalMs ?? options.dataCheckDefaultMs ?? 0;
  const dataChecker =
    intervalMs > 0
      ? new DataChecker({
          members: () => prober.dataCheckMembers(),
          report: (findings) => {
            prober.dataFindings = findings;
          },
          intervalMs,
          timeoutMs: config.dataCheckTimeoutMs,
          now,
        })
      : null;
  dataChecker?.start();
  return {
    prober,
    source,
    dataChecker,
    async close() {
      dataChecker?.close();
      prober.close();
      await source.close();
    },
  };
}
