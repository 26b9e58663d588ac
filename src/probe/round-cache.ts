/** How a request was served: from a finished round (`hit`), by starting one (`miss`), or by joining one (`coalesced`). */
export type CacheOutcome = 'hit' | 'miss' | 'coalesced';

/** A cached value, when its round finished, and how this read got it. */
export interface CacheRead<T> {
  readonly value: T;
  /** Clock time (ms) when the round finished. */
  readonly completedAt: number;
  readonly cache: CacheOutcome;
}

/** The cache's settings; the clock is injected so tests can move it. */
export interface RoundCacheOptions<T> {
  readonly load: () => Promise<T>;
  readonly ttlMs: number;
  /** Forced (`fresh`) rounds start at most once per this interval. */
  readonly minForcedIntervalMs: number;
  readonly now: () => number;
}

interface Entry<T> {
  readonly value: T;
  readonly completedAt: number;
}

/**
 * Serves one round's result for ttlMs, and makes every request that finds no fresh result share the
 * one round in flight: any number of pollers cost etcd one round per interval.
 */
export class RoundCache<T> {
  readonly #options: RoundCacheOptions<T>;
  #current: Entry<T> | null = null;
  #inflight: Promise<Entry<T>> | null = null;
  #lastForcedAt = Number.NEGATIVE_INFINITY;

  constructor(options: RoundCacheOptions<T>) {
    this.#options = options;
  }

  /** The current result, starting or joining a round when it is stale (or when `fresh` asks for one). */
  async get(options: { fresh?: boolean } = {}): Promise<CacheRead<T>> {
    if (this.#inflight) return { ...(await this.#inflight), cache: 'coalesced' };
    const now = this.#options.now();
    const current = this.#current;
    if (current) {
      const young = now - current.completedAt < this.#options.ttlMs;
      const forcedRecently = now - this.#lastForcedAt < this.#options.minForcedIntervalMs;
      if (options.fresh ? forcedRecently : young) return { ...current, cache: 'hit' };
    }
    if (options.fresh) this.#lastForcedAt = now;
    return { ...(await this.#start()), cache: 'miss' };
  }

  /** The last finished result, without starting anything. */
  peek(): Entry<T> | null {
    return this.#current;
  }

  /** Waits for the round in flight, if any (used on shutdown). */
  async settle(): Promise<void> {
    await this.#inflight?.catch(() => undefined);
  }

  #start(): Promise<Entry<T>> {
    const round = this.#options
      .load()
      .then((value) => {
        const entry = { value, completedAt: this.#options.now() };
        this.#current = entry;
        return entry;
      })
      .finally(() => {
        this.#inflight = null;
      });
    this.#inflight = round;
    return round;
  }
}
