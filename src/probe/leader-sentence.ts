import type { QuorumFacts, LeaderRef } from './quorum.ts';
import { label } from './reason.ts';

/** The leader in words, the same on the status page, in `?verbose` and in `etcd-probe check`. */
export interface LeaderWords {
  /** A leader was confirmed and answered etcd-probe itself: the only case any view shows as "ok". */
  readonly ok: boolean;
  readonly text: string;
}

/** Says who leads, never presenting a member that did not answer as a working leader. */
export function leaderSentence(verdict: { readonly leader: LeaderRef | null; readonly quorum: QuorumFacts }): LeaderWords {
  const leader = verdict.leader;
  if (leader?.reachable) return { ok: true, text: label(leader) };
  if (leader) return { ok: false, text: `${label(leader)} leads by its followers' account (a read passed consensus), but does not answer etcd-probe` };
  if (verdict.quorum.confirmed) return { ok: false, text: 'none named: the leader changed during this round (a read passed consensus)' };
  return { ok: false, text: 'no leader confirmed this round' };
}
