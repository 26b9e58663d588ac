import { buildClusterView, type ClusterView } from './cluster-view.ts';
import type { DataFindings } from './data-check/data-checks.ts';
import type { Transition } from './history/transitions.ts';
import type { Thresholds } from './member-checks.ts';
import type { RoundObservations } from './observations.ts';
import { judge, type RecentRounds, type Verdict } from './verdict.ts';

/** One finished probe round: what was observed, how it merges, and the verdict. Every route reads one. */
export interface Snapshot {
  /** 1 for the first round, counting up. */
  readonly sequence: number;
  /** The mode that found the members, e.g. `static`. */
  readonly mode: string;
  /** Epoch ms when the round finished. */
  readonly checkedAt: number;
  /** checkedAt as RFC 3339, rendered once per round rather than once per request. */
  readonly checkedAtIso: string;
  readonly durationMs: number;
  readonly observations: RoundObservations;
  readonly view: ClusterView;
  readonly verdict: Verdict;
  /** What changed since the previous round (filled in once the round is added to history). */
  readonly changes: readonly Transition[];
  /** The divergence check's findings when the round was judged; null when it is off or has not compared yet. */
  readonly data?: DataFindings | null;
}

/** What one finished round is judged from: its observations, the limits, what earlier rounds proved, and when it ended. */
export interface RoundInput {
  readonly sequence: number;
  readonly mode: string;
  readonly observations: RoundObservations;
  readonly thresholds: Thresholds;
  /** What earlier rounds proved and recorded. */
  readonly recent: RecentRounds;
  /** Epoch ms when the round finished; the verdict's `now`. */
  readonly checkedAt: number;
}

/** Merges a round's observations into a view, judges it, and assembles the snapshot every route reads. Pure. */
export function buildSnapshot(input: RoundInput): Snapshot {
  const view = buildClusterView(input.observations);
  return {
    sequence: input.sequence,
    mode: input.mode,
    checkedAt: input.checkedAt,
    checkedAtIso: new Date(input.checkedAt).toISOString(),
    durationMs: Math.round(input.observations.durationMs * 100) / 100,
    observations: input.observations,
    view,
    verdict: judge(view, input.thresholds, input.checkedAt, input.recent),
    changes: [],
    data: input.recent.data ?? null,
  };
}
