/**
 * Bounds the probe rounds in flight across every cluster of a fleet (ETCD_PROBE_MAX_ROUNDS_IN_FLIGHT):
 * a round waits for a slot, first come first served, so that 500 clusters going stale together cost the
 * machine a bounded burst, not 500 rounds at once.
 */
export class RoundLimiter {
  readonly #max: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #urgent: (() => void)[] = [];

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a limit of rounds in flight must be a positive integer, not ${max}`);
    this.#max = max;
  }

  /**
   * Runs `round` when a slot is free; the slot is freed however it ends. An `urgent` round (one a request
   * waits for) goes before every waiting background round (the refresh of the owned clusters), so that an
   * answer never waits behind a whole fleet's refresh.
   */
  async run<T>(round: () => Promise<T>, urgent = false): Promise<T> {
    if (this.#running >= this.#max) await new Promise<void>((resolve) => (urgent ? this.#urgent : this.#waiting).push(resolve));
    else this.#running++;
    try {
      return await round();
    } finally {
      const next = this.#urgent.shift() ?? this.#waiting.shift();
      // The slot passes straight to the next waiter, so the count never drops below what is in flight.
      if (next) next();
      else this.#running--;
    }
  }

  /** Rounds running now, and rounds waiting for a slot. */
  get load(): { readonly running: number; readonly waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length + this.#urgent.length };
  }
}
