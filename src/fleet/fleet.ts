import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ShardRef } from '../config/config.ts';
import type { ClusterEntry } from './cluster-entry.ts';
import { ClusterSlot, type SlotOptions } from './cluster-slot.ts';
import type { RoundLimiter } from './round-limiter.ts';
import { owns } from './shard.ts';

/**
 * How long a cluster this replica does not own keeps its prober (clients, port-forwards) after it was last
 * asked about: 5 minutes, so that a dashboard that keeps polling it reuses them and a one-off look is
 * released soon after. Not a setting (it was ETCD_PROBE_IDLE_CLOSE): nobody was found who needs to turn it.
 */
export const IDLE_CLOSE_MS = 5 * 60_000;

/** What a fleet runs with. */
export interface FleetOptions {
  readonly shard: ShardRef;
  readonly limiter: RoundLimiter;
  readonly logger: Logger;
  /** Epoch milliseconds. */
  readonly now: () => number;
  readonly minForcedIntervalMs: number;
  /** How often the owned clusters are probed (and idle ones released). */
  readonly refreshMs: number;
  /** How long a cluster this replica does not own keeps its prober after it was last asked about (IDLE_CLOSE_MS). */
  readonly idleCloseMs: number;
  /** Whether clusters keep their member connections open between rounds (SlotOptions). */
  readonly holdConnections: boolean;
  readonly buildCore?: SlotOptions['buildCore'];
  readonly management?: SlotOptions['management'];
}

/** How the fleet's membership last changed, for /clusters and the log. */
export interface FleetChange {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly rebuilt: readonly string[];
}

/**
 * The clusters of a fleet in this process, by name. `update()` takes the whole list (from a clusters
 * file once, or from each listing of a Cluster API fleet) and adds, rebuilds and closes slots to match.
 * `start()` keeps the owned clusters warm (a round per refresh) and releases idle ones; `close()` closes
 * every slot. A cluster's identity for sharding is its name.
 */
export class Fleet {
  readonly #options: FleetOptions;
  readonly #slots = new Map<string, ClusterSlot>();
  /** The slots in name order, sorted once per change of the fleet (GET /clusters reads it per request). */
  #sorted: readonly ClusterSlot[] | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** Ends the waits between paced rounds when the fleet closes. */
  readonly #closing = new AbortController();
  #closed = false;

  constructor(options: FleetOptions) {
    this.#options = options;
  }

  /** Every cluster, in name order. */
  get slots(): readonly ClusterSlot[] {
    this.#sorted ??= [...this.#slots.values()].sort((a, b) => a.entry.name.localeCompare(b.entry.name));
    return this.#sorted;
  }

  /** The cluster of that name, or undefined. */
  slot(name: string): ClusterSlot | undefined {
    return this.#slots.get(name);
  }

  /** Makes the fleet's clusters these: new ones added, changed ones rebuilt, missing ones closed. */
  async update(entries: readonly ClusterEntry[]): Promise<FleetChange> {
    if (this.#closed) return { added: [], removed: [], rebuilt: [] };
    const wanted = new Map(entries.map((e) => [e.name, e]));
    const added: string[] = [];
    const removed: string[] = [];
    const rebuilt: string[] = [];
    const closing: Promise<void>[] = [];
    this.#sorted = null;
    for (const [name, slot] of this.#slots) {
      const entry = wanted.get(name);
      if (entry && entry.revision === slot.entry.revision) continue;
      this.#slots.delete(name);
      closing.push(slot.close());
      (entry ? rebuilt : removed).push(name);
    }
    const fresh: ClusterSlot[] = [];
    for (const entry of entries) {
      if (this.#slots.has(entry.name)) continue;
      const slot = this.#slotOf(entry);
      this.#slots.set(entry.name, slot);
      fresh.push(slot);
      if (!rebuilt.includes(entry.name)) added.push(entry.name);
    }
    await Promise.all(closing);
    // A cluster this replica owns is warmed as soon as it joins (not at the next refresh, up to a whole
    // interval later), in the background and through the limiter.
    if (this.#timer) for (const slot of fresh) if (slot.owned && slot.entry.waiting === null) void slot.cache.get().catch(() => undefined);
    return { added, removed, rebuilt };
  }

  /**
   * Starts keeping the owned clusters warm and releasing idle ones, every refresh interval. The first
   * refresh starts every round at once (through the limiter), to warm the fleet soon; later ones spread
   * their rounds evenly over the interval.
   */
  start(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => void this.tick(this.#options.refreshMs), this.#options.refreshMs);
    this.#timer.unref();
    void this.tick(0);
  }

  /**
   * One refresh: a round for every owned cluster that is not waiting, and idle clusters released. The
   * rounds start `spreadMs / n` apart, so that a fleet's refresh is a steady load, not a burst of every
   * round at the same moment that requests (GET /clusters) would queue behind.
   */
  async tick(spreadMs: number): Promise<void> {
    const work: Promise<unknown>[] = [];
    const warm: ClusterSlot[] = [];
    for (const slot of this.#slots.values()) {
      // A cluster whose rounds keep reaching nothing is refreshed less often (RoundBackoff).
      if (slot.owned && slot.entry.waiting === null) {
        if (!slot.backoff.skips(this.#options.now())) warm.push(slot);
      }
      else work.push(slot.releaseIfIdle(this.#options.idleCloseMs));
    }
    const gapMs = warm.length > 0 ? spreadMs / warm.length : 0;
    for (const [i, slot] of interleavedByTenant(warm).entries()) {
      if (i > 0 && gapMs > 0 && !(await this.#paused(gapMs))) break;
      work.push(slot.cache.get().catch(() => undefined));
    }
    await Promise.all(work);
  }

  /** Waits `ms`; false if the fleet closed meanwhile. */
  async #paused(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.#closing.signal, ref: false });
      return !this.#closed;
    } catch {
      return false;
    }
  }

  /** Stops the timer and closes every cluster. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    this.#sorted = null;
    await Promise.all(slots.map((s) => s.close()));
  }

  #slotOf(entry: ClusterEntry): ClusterSlot {
    const { limiter, logger, now, minForcedIntervalMs, holdConnections, buildCore, management } = this.#options;
    return new ClusterSlot(entry, {
      limiter,
      logger,
      now,
      minForcedIntervalMs,
      holdConnections,
      refreshMs: this.#options.refreshMs,
      owned: owns(this.#options.shard, entry.shardKey ?? entry.name),
      ...(buildCore ? { buildCore } : {}),
      ...(management ? { management } : {}),
    });
  }
}

/**
 * The clusters of a refresh in the order their rounds start: one of each tenant (a Cluster's namespace) in
 * turn, each tenant's in their own order. A refresh spreads its rounds over the interval, so in listing
 * order a tenant with 400 clusters ahead of another's would put the other's rounds at the end of every
 * refresh; in turns, a tenant's clusters start as early as any other's share of the interval allows.
 */
export function interleavedByTenant<T extends { readonly entry: { readonly name: string } }>(slots: readonly T[]): T[] {
  const byTenant = new Map<string, T[]>();
  for (const slot of slots) {
    const name = slot.entry.name;
    const tenant = name.includes('/') ? name.slice(0, name.indexOf('/')) : '';
    const list = byTenant.get(tenant);
    if (list) list.push(slot);
    else byTenant.set(tenant, [slot]);
  }
  const queues = [...byTenant.values()];
  const ordered: T[] = [];
  for (let i = 0; ordered.length < slots.length; i++) for (const queue of queues) if (i < queue.length) ordered.push(queue[i] as T);
  return ordered;
}
