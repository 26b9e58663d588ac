import type { DataFindings } from './data-check/data-checks.ts';
import { RoundHistory, type HistoryLimits } from './history/round-history.ts';
import { recordOf } from './history/round-record.ts';
import { NO_MEMORY, remember, type LeaderMemory } from './leader-memory.ts';
import type { Thresholds } from './member-checks.ts';
import type { RoundObservations } from './observations.ts';
import { buildSnapshot, type Snapshot } from './snapshot.ts';

/** What a round judge needs: the limits, how much history to keep, and the mode it reports. */
export interface RoundJudgeOptions {
  readonly thresholds: Thresholds;
  readonly history: HistoryLimits;
  readonly mode: string;
}

/**
 * Judges rounds one after the other, carrying what each needs from the earlier ones: when a leader was
 * last confirmed, and the recent rounds' records. No I/O: the prober feeds it observations, tests feed
 * it scripted ones.
 */
export class RoundJudge {
  readonly #options: RoundJudgeOptions;
  readonly history: RoundHistory;
  #memory: LeaderMemory = NO_MEMORY;
  #previous: Snapshot | null = null;
  #sequence = 0;
  /** The divergence check's findings, set by its own schedule and read by every round. */
  data: DataFindings | null = null;

  constructor(options: RoundJudgeOptions) {
    this.#options = options;
    this.history = new RoundHistory(options.history);
  }

  /** The last round judged, or null before the first. */
  get previous(): Snapshot | null {
    return this.#previous;
  }

  /** Judges a round that finished at `checkedAt`, records it, and returns its snapshot with what changed. */
  judge(observations: RoundObservations, checkedAt: number): Snapshot {
    const judged = buildSnapshot({
      sequence: ++this.#sequence,
      mode: this.#options.mode,
      observations,
      thresholds: this.#options.thresholds,
      recent: { memory: this.#memory, history: this.history.records(observations.startedAt - this.history.limits.checksMs), data: this.data },
      checkedAt,
    });
    const { verdict, view } = judged;
    this.#memory = remember(this.#memory, { startedAt: observations.startedAt, confirmed: verdict.quorum.confirmed, leader: verdict.leader });
    const failures = new Map(view.members.flatMap((m) => (m.error ? [[m.id, m.error.message] as const] : [])));
    const changes = this.history.add(recordOf(view, verdict, checkedAt), failures);
    const snapshot: Snapshot = { ...judged, changes };
    this.#previous = snapshot;
    return snapshot;
  }
}
