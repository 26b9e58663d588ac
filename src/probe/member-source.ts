import type { MemberClient } from './member-client.ts';
import type { KubeFacts, ListedMember } from './observations.ts';
import type { ProbeTarget } from './probe-target.ts';

/**
 * Where the members are and how to reach them: the seam between a discovery mode (discovery/ implements
 * it) and the probe, which only sees targets and clients.
 *
 * Credentials rotate one way in every mode: a target's key names the credentials its client is built
 * with (a generation), so new credentials (changed files, a rotated Secret, a new minted certificate)
 * make new keys. The round probes the new keys with new clients, and the prober's pool closes the clients
 * of the keys it no longer probed; no round mixes old and new credentials on one target.
 */
export interface MemberSource {
  /** Names the mode in reports, e.g. `static`. */
  readonly mode: string;
  /**
   * Called once at the start of each round, before targets() and in parallel with probing the targets
   * known before it: looks for new credentials and refreshes discovery. A Kubernetes mode answers what
   * it learnt; static mode, with nothing to discover, answers null.
   */
  refresh?(): Promise<KubeFacts | null>;
  /** The targets to probe, given the members listed so far (empty before the first member list). */
  targets(listed: readonly ListedMember[]): Promise<readonly ProbeTarget[]>;
  /** Opens a client for a target; the probe's pool owns it and closes it. */
  connect(target: ProbeTarget): MemberClient;
  /** Releases what the source itself holds. */
  close(): Promise<void>;
}
