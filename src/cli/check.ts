import { buildProbeCore, type ProbeCore } from '../app.ts';
import type { Config, InClusterAccess } from '../config/config.ts';
import { healthzDocument } from '../http/documents.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';
import type { OutputFormat } from './command-line.ts';
import { exitCodeFor } from './exit-codes.ts';
import { renderStatusTable } from './status-table.ts';
import { renderVerdictSummary } from './verdict-summary.ts';

/** What `etcd-probe check` runs with; output goes through `write` (stdout in main). */
export interface CheckOptions {
  readonly config: Config;
  readonly tls: TlsMaterial;
  /** The API server and service-account files when a setting says `in-cluster`. */
  readonly inCluster?: InClusterAccess | null;
  readonly output: OutputFormat;
  readonly write: (text: string) => void;
  /** Epoch milliseconds; defaults to Date.now. */
  readonly now?: () => number;
  /** Builds the prober; defaults to the server's own constructor, so both probe the same members. */
  readonly buildCore?: (options: { config: Config; tls: TlsMaterial; now: () => number; inCluster: InClusterAccess | null }) => ProbeCore | Promise<ProbeCore>;
}

/** The report of one round in the chosen format. */
export function renderCheck(snapshot: Snapshot, config: Pick<Config, 'policy'>, output: OutputFormat, now: number): string {
  if (output === 'json') {
    return `${JSON.stringify(healthzDocument(snapshot, config.policy), null, 2)}\n`;
  }
  return `${renderStatusTable(snapshot)}\n${renderVerdictSummary(snapshot)}`;
}

/** Runs one probe round, prints it, closes every client, and returns the exit code of the verdict. */
export async function runCheck(options: CheckOptions): Promise<number> {
  const now = options.now ?? Date.now;
  const core = await (options.buildCore ?? buildProbeCore)({ config: options.config, tls: options.tls, now, inCluster: options.inCluster ?? null });
  let snapshot: Snapshot;
  try {
    snapshot = await core.prober.round();
  } finally {
    await core.close();
  }
  options.write(renderCheck(snapshot, options.config, options.output, now()));
  return exitCodeFor(snapshot.verdict.status);
}
