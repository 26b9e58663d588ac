/** A round waiting for a slot, and whether a request waits for it now. */
interface Waiter {
  readonly start: () => void;
  readonly urgent: () => boolean;
}

const NEVER = () => false;

/**
 * Bounds the probe rounds in flight across every cluster of a fleet (ETCD_PROBE_MAX_ROUNDS_IN_FLIGHT):
 * a round waits for a slot, so that 500 clusters going stale together cost the machine a bounded burst,
 * not 500 rounds at once. A freed slot goes to the first waiting round that a request waits for (its
 * `urgent()` is asked then, so a background round that a request joined meanwhile counts), else to the
 * first waiting round: an answer never waits behind a whole fleet's refresh.
 */
export class RoundLimiter {
  readonly #max: number;
  #running = 0;
  readonly #waiting: Waiter[] = [];

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a limit of rounds in flight must be a positive integer, not ${max}`);
    this.#max = max;
  }

  /** Runs `round` when a slot is free; the slot is freed however it ends. */
  async run<T>(round: () => Promise<T>, urgent: () => boolean = NEVER): Promise<T> {
    if (this.#running >= this.#max) await new Promise<void>((start) => this.#waiting.push({ start, urgent }));
    else this.#running++;
    try {
      return await round();
    } finally {
      const index = this.#waiting.findIndex((w) => w.urgent());
      const [next] = this.#waiting.splice(index === -1 ? 0 : index, 1);
      // The slot passes straight to the next waiter, so the count never drops below what is in flight.
      if (next) next.start();
      else this.#running--;
    }
  }

  /** Rounds running now, and rounds waiting for a slot. */
  get load(): { readonly running: number; readonly waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }
}
