import type { DataComparison } from './compare-hashes.ts';
import { nextFindings, type DataFindings } from './data-checks.ts';
import { runDataCheck, type DataCheckMember } from './run-data-check.ts';

/** What a data checker needs: whom to compare, where its findings go, its schedule and a clock. */
export interface DataCheckerOptions {
  /** The members to compare now (those the last round reached), with their clients. */
  readonly members: () => readonly DataCheckMember[];
  /** Called with the findings after every comparison. */
  readonly report: (findings: DataFindings) => void;
  readonly intervalMs: number;
  /** Deadline of each member's HashKV. */
  readonly timeoutMs: number;
  /** Epoch milliseconds. */
  readonly now: () => number;
}

/**
 * Runs the divergence check on its own schedule, apart from probe rounds (HashKV reads the whole
 * keyspace: it must not ride on every round), never more than one comparison at a time. Owns its timer;
 * close() stops it.
 */
export class DataChecker {
  readonly #options: DataCheckerOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<DataComparison | null> | null = null;
  #findings: DataFindings | null = null;
  #closed = false;

  constructor(options: DataCheckerOptions) {
    this.#options = options;
  }

  /** The findings so far, or null before the first comparison. */
  get findings(): DataFindings | null {
    return this.#findings;
  }

  /** Starts the schedule: a first comparison after one interval, then one per interval. */
  start(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => void this.check(), this.#options.intervalMs);
    // The schedule alone never keeps the process alive.
    this.#timer.unref();
  }

  /**
   * Runs a comparison now, or joins the one running; null when there is nobody to compare (no round has
   * reached a member yet) or the checker is closed.
   */
  check(): Promise<DataComparison | null> {
    this.#running ??= this.#compare().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #compare(): Promise<DataComparison | null> {
    const members = this.#options.members();
    if (this.#closed || members.length === 0) return null;
    const comparison = await runDataCheck(members, this.#options.timeoutMs, this.#options.now);
    if (this.#closed) return null;
    this.#findings = nextFindings(this.#findings, comparison);
    this.#options.report(this.#findings);
    return comparison;
  }

  /** Stops the schedule; a comparison in flight ends by its deadline and is dropped. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}
