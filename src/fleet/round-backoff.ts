import type { Snapshot } from '../probe/snapshot.ts';

/** The longest a failing cluster's refresh is put off: ten minutes, or eight refreshes if that is shorter. */
export const BACKOFF_CAP_MS = 600_000;

/** Reasons that say a round reached nothing: its cluster's API or every member unreachable or timing out. */
const UNREACHED = new Set(['NO_MEMBER_REACHABLE', 'KUBE_API_UNREACHABLE']);

/** Whether a round reached nothing (or failed outright: null), which backs a cluster's refresh off. */
export function reachedNothing(snapshot: Snapshot | null): boolean {
  return snapshot === null || snapshot.verdict.reasons.some((r) => UNREACHED.has(r.code));
}

/** What /clusters shows of a cluster whose refresh is put off. */
export interface BackoffState {
  /** Rounds in a row that reached nothing. */
  readonly failures: number;
  /** Epoch ms before which the fleet's refresh skips it. */
  readonly until: number;
}

/**
 * The exponential backoff of a cluster whose rounds keep reaching nothing (unreachable, timing out): after
 * n such rounds in a row its refresh is put off for refresh × 2^(n-1), at most min(8 refreshes, 10 min);
 * one round that reaches anything resets it. Only the fleet's background refresh waits: a request with the
 * token still gets a round. So a tenant's dead clusters cost a round every few minutes, not every refresh.
 */
export class RoundBackoff {
  readonly #refreshMs: number;
  #failures = 0;
  #until = 0;

  constructor(refreshMs: number) {
    this.#refreshMs = refreshMs;
  }

  /** Records a round's outcome at `now`. */
  record(failed: boolean, now: number): void {
    if (!failed) {
      this.#failures = 0;
      this.#until = 0;
      return;
    }
    this.#failures++;
    const cap = Math.min(8 * this.#refreshMs, BACKOFF_CAP_MS);
    this.#until = now + Math.min(this.#refreshMs * 2 ** (this.#failures - 1), cap);
  }

  /** Whether the refresh skips the cluster at `now`. */
  skips(now: number): boolean {
    return now < this.#until;
  }

  /** The backoff in force (null when none): for /clusters and the metric. */
  state(now: number): BackoffState | null {
    return this.#failures > 1 && now < this.#until ? { failures: this.#failures, until: this.#until } : null;
  }
}
