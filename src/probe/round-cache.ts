/**
 * How a request was served: from a finished round within its TTL (`hit`), from the latest finished round
 * past its TTL while the next one runs (`stale`), by starting a round (`miss`), or by joining one (`coalesced`).
 */
export type CacheOutcome = 'hit' | 'stale' | 'miss' | 'coalesced';

/** A cached value, when its round finished, and how this read got it. */
export interface CacheRead<T> {
  readonly value: T;
  /** Clock time (ms) when the round finished. */
  readonly completedAt: number;
  readonly cache: CacheOutcome;
}

/**
 * How often a caller may force a new round (`?fresh=true`), in one cluster or each of a fleet's: fresh
 * enough for a person or a rollout gate, and no way for a loop of callers to hammer etcd.
 */
export const MIN_FORCED_INTERVAL_MS = 1000;

/** The cache's settings; the clock is injected so tests can move it. */
export interface RoundCacheOptions<T> {
  readonly load: () => Promise<T>;
  readonly ttlMs: number;
  /** Forced (`fresh`) rounds start at most once per this interval. */
  readonly minForcedIntervalMs: number;
  /**
   * How long past its TTL the latest round may still answer while the next one runs (stale-while-revalidate,
   * RFC 5861); 0: never, every read past the TTL waits. An answer is thus at most ttlMs + staleMs old.
   * A TTL of 0 (every request its own round) never answers stale, whatever this says.
   */
  readonly staleMs?: number;
  readonly now: () => number;
}

/** What a read accepts: `fresh` asks for a new round; `stale: false` refuses an answer past its TTL. */
export interface GetOptions {
  readonly fresh?: boolean;
  readonly stale?: boolean;
}

interface Entry<T> {
  readonly value: T;
  readonly completedAt: number;
}

/**
 * Serves one round's result for ttlMs, and makes every request that finds no fresh result share the
 * one round in flight: any number of pollers cost etcd one round per interval. Past the TTL and within
 * staleMs more, a read answers at once from the latest round and starts the next one in the background,
 * so that no plain read waits on a round held up by a hung member; older than that, it waits.
 */
export class RoundCache<T> {
  readonly #options: RoundCacheOptions<T>;
  #current: Entry<T> | null = null;
  #inflight: Promise<Entry<T>> | null = null;
  #lastForcedAt = Number.NEGATIVE_INFINITY;

  constructor(options: RoundCacheOptions<T>) {
    this.#options = options;
  }

  /**
   * The current result, starting or joining a round when it is past its TTL (or when `fresh` asks for one);
   * within the stale window a plain read answers from the latest round and the next one runs behind it.
   */
  async get(options: GetOptions = {}): Promise<CacheRead<T>> {
    const now = this.#options.now();
    const current = this.#current;
    if (current && !options.fresh) {
      const age = now - current.completedAt;
      if (age < this.#options.ttlMs) return { ...current, cache: 'hit' };
      if (options.stale !== false && this.#options.ttlMs > 0 && age < this.#options.ttlMs + (this.#options.staleMs ?? 0)) {
        this.refresh();
        return { ...current, cache: 'stale' };
      }
    }
    if (this.#inflight) return { ...(await this.#inflight), cache: 'coalesced' };
    if (current && options.fresh && now - this.#lastForcedAt < this.#options.minForcedIntervalMs) return { ...current, cache: 'hit' };
    if (options.fresh) this.#lastForcedAt = now;
    return { ...(await this.#start()), cache: 'miss' };
  }

  /**
   * Starts a round unless one is in flight, for the cadence and for stale reads; resolves when the round
   * is over, and never rejects (a failed round is the next reader's to see: it waits, as without a result).
   */
  refresh(): Promise<void> {
    const round = this.#inflight ?? this.#start();
    return round.then(
      () => undefined,
      () => undefined,
    );
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
