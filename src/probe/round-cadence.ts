import type { RoundCache } from './round-cache.ts';

/** What the cadence needs: the cache whose rounds it runs, their TTL, the clock and timers (injected for tests). */
export interface RoundCadenceOptions {
  readonly cache: Pick<RoundCache<unknown>, 'peek' | 'refresh'>;
  readonly ttlMs: number;
  readonly now: () => number;
  readonly setTimer?: (run: () => void, ms: number) => NodeJS.Timeout;
  readonly clearTimer?: (timer: NodeJS.Timeout) => void;
}

/** The shortest pause between rounds, so that a TTL under it or failing rounds do not spin. */
const MIN_GAP_MS = 1000;

/**
 * Runs a round each time the latest one reaches its TTL, whoever polls: history then sees a round every
 * TTL (plus its duration), as the fleet's refresh does for its clusters, and a poller past the TTL finds
 * the next round already running (answered stale meanwhile) instead of starting it. A round someone
 * forced with `?fresh` moves the next one to that round's TTL. The server's owner starts it once it
 * listens and stops it on close; the timer never holds the process open.
 */
export class RoundCadence {
  readonly #options: RoundCadenceOptions;
  #timer: NodeJS.Timeout | null = null;
  #running = false;

  constructor(options: RoundCadenceOptions) {
    this.#options = options;
  }

  /** Starts the cadence: a round now unless one finished within the TTL, then one every TTL; none at TTL 0 (every request its own round). */
  start(): void {
    if (this.#running || this.#options.ttlMs <= 0) return;
    this.#running = true;
    this.#schedule();
  }

  /** Stops the cadence; a round in flight finishes (the cache's settle waits for it). */
  stop(): void {
    this.#running = false;
    if (this.#timer) (this.#options.clearTimer ?? clearTimeout)(this.#timer);
    this.#timer = null;
  }

  #schedule(): void {
    if (!this.#running) return;
    const due = this.#dueIn();
    if (due > 0) {
      this.#arm(due);
      return;
    }
    void this.#options.cache.refresh().then(() => {
      // After a failed round the latest result is as old as before: wait the gap rather than retry at once.
      if (this.#running) this.#arm(Math.max(this.#dueIn(), MIN_GAP_MS));
    });
  }

  /** Milliseconds until the latest round reaches its TTL (0 or less: due now). */
  #dueIn(): number {
    const latest = this.#options.cache.peek();
    return latest === null ? 0 : latest.completedAt + this.#options.ttlMs - this.#options.now();
  }

  #arm(ms: number): void {
    const timer = (this.#options.setTimer ?? setTimeout)(() => {
      this.#timer = null;
      this.#schedule();
    }, ms);
    timer.unref?.();
    this.#timer = timer;
  }
}
