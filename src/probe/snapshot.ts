import type { ClusterView } from './cluster-view.ts';
import type { RoundObservations } from './observations.ts';
import type { Verdict } from './verdict.ts';

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
}
