import { ConfigError } from '../config/config-error.ts';
import type { Config, InClusterAccess } from '../config/config.ts';
import { buildProbeCore, thresholdsOf, type ProbeCore } from '../core/probe-core.ts';
import { healthzDocument } from '../http/documents.ts';
import { project, type Projection } from '../probe/disruption.ts';
import { findMember, knownMembers } from '../probe/find-member.ts';
import type { HealthStatus } from '../probe/health-status.ts';
import { label } from '../probe/reason.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';
import type { OutputFormat } from './command-line.ts';
import { EXIT_DEGRADED, EXIT_OK, EXIT_UNHEALTHY, exitCodeFor } from './exit-codes.ts';
import { renderStatusTable } from './status-table.ts';
import { renderVerdictSummary } from './verdict-summary.ts';

/** What `etcd-probe check` runs with; output goes through `write` (stdout in main). */
export interface CheckOptions {
  readonly config: Config;
  readonly tls: TlsMaterial;
  /** The API server and service-account files when a setting says `in-cluster`. */
  readonly inCluster?: InClusterAccess | null;
  readonly output: OutputFormat;
  /** `--can-stop <member>`: answer whether that member may stop now instead of printing the round. */
  readonly canStop?: string | null;
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
  if (options.canStop) return answerCanStop(snapshot, options, options.canStop, now());
  options.write(renderCheck(snapshot, options.config, options.output, now()));
  return exitCodeFor(snapshot.verdict.status);
}

/**
 * `check --can-stop <member>`: 0 when stopping it keeps quorum, 1 when not, 2 when the cluster is unhealthy
 * already (nothing may stop); an unknown member is a mistake on the command line (78, thrown as ConfigError).
 */
function answerCanStop(snapshot: Snapshot, options: CheckOptions, key: string, now: number): number {
  const { view, verdict } = snapshot;
  const listed = view.members.filter((m) => m.listed);
  const member = findMember(listed, key);
  if (!member) throw new ConfigError('--can-stop', `no member has that name or ID; members: ${knownMembers(listed) || 'none answered'}`);
  const projection = project(view, verdict, member, 'stop', thresholdsOf(options.config), now);
  const answer = { member: { id: member.id, name: member.name }, action: 'stop', ...projection, checkedAt: snapshot.checkedAtIso };
  if (options.output === 'json') options.write(`${JSON.stringify(answer, null, 2)}\n`);
  else options.write(renderCanStop(label(member), member.id, projection, verdict.status));
  if (verdict.status === 'unhealthy') return EXIT_UNHEALTHY;
  return projection.safe ? EXIT_OK : EXIT_DEGRADED;
}

function renderCanStop(name: string, id: string, p: Projection, status: HealthStatus): string {
  const q = p.after.quorum;
  const lines = [
    `${name} (${id}): ${p.safe ? 'safe to stop' : 'NOT safe to stop'}${status === 'unhealthy' ? ' (the cluster is unhealthy now)' : ''}`,
    `after: ${p.after.status}; ${q.healthyVoting} of ${q.voting} voting members healthy, ${q.required} required`,
  ];
  for (const r of p.reasons) lines.push(`  ${r.code} (${r.severity}): ${r.message}`, `    hint: ${r.hint}`);
  return `${lines.join('\n')}\n`;
}
