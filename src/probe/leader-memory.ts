import type { MemberRef } from './reason.ts';

/**
 * What recent rounds proved about leadership, so that one round can tell an election (a leader lost
 * moments ago) from a quorum that no election will restore. Kept by the prober; read by the pure verdict.
 */
export interface LeaderMemory {
  /** Start (epoch ms) of the last round in which a linearizable read passed, i.e. a leader held a quorum. */
  readonly confirmedAt: number | null;
  /** Start of the first round of the current stretch without such a read; null while reads pass. */
  readonly unconfirmedSince: number | null;
  /** The leader of the last round that had one. */
  readonly lastLeader: MemberRef | null;
}

/** Nothing remembered: the first round, or a one-shot check. */
export const NO_MEMORY: LeaderMemory = { confirmedAt: null, unconfirmedSince: null, lastLeader: null };

/** The memory after a round that started at `startedAt` and judged `confirmed` with `leader`. Pure. */
export function remember(memory: LeaderMemory, round: { startedAt: number; confirmed: boolean; leader: MemberRef | null }): LeaderMemory {
  const lastLeader = round.leader ? { id: round.leader.id, name: round.leader.name } : memory.lastLeader;
  if (round.confirmed) return { confirmedAt: round.startedAt, unconfirmedSince: null, lastLeader };
  return { confirmedAt: memory.confirmedAt, unconfirmedSince: memory.unconfirmedSince ?? round.startedAt, lastLeader };
}

/** Since when no leader has been confirmed, as best the memory knows: the last proof, else the first round without one. */
export function leaderlessSince(memory: LeaderMemory, now: number): number {
  return memory.confirmedAt ?? memory.unconfirmedSince ?? now;
}
