import type { MemberClient } from '../probe/member-client.ts';
import type { KubeFacts, ListedMember } from '../probe/observations.ts';
import type { ProbeTarget } from '../probe/probe-target.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';

/**
 * Where the members are and how to reach them: the seam between a mode (static endpoints today,
 * Kubernetes discovery later) and the probe, which only sees targets and clients.
 */
export interface MemberSource {
  /** Names the mode in reports, e.g. `static`. */
  readonly mode: string;
  /**
   * Refreshes discovery for a round (called once per round, in parallel with probing the targets known
   * before it); a Kubernetes mode answers what it learnt, static mode has nothing to refresh.
   */
  refresh?(): Promise<KubeFacts>;
  /** The targets to probe, given the members listed so far (empty before the first member list). */
  targets(listed: readonly ListedMember[]): Promise<readonly ProbeTarget[]>;
  /** Opens a client for a target; the probe's pool owns it and closes it. */
  connect(target: ProbeTarget): MemberClient;
  /**
   * Looks for new credentials (e.g. renewed certificate files); true when they changed, so that the
   * prober replaces every client it holds. Called at the start of each round; optional for sources
   * whose credentials never change.
   */
  refreshCredentials?(): boolean;
  /**
   * The etcd client credentials in use when the source obtains them itself (a Secret, a minted
   * certificate); absent when they come from files, whose reloader reports them.
   */
  credentials?(): TlsMaterial | null;
  /** Releases what the source itself holds. */
  close(): Promise<void>;
}
