import type { Counter, Histogram } from 'prom-client';

type Cumulative<L extends string> = Counter<L> | Histogram<L>;

/**
 * The label sets a cumulative per-member metric (counter, histogram) has written, by member ID, so that
 * a member gone from the cluster takes its series with it. Gauges are reset each round; counters and
 * histograms cannot be, and without this a cluster whose members come and go (or an API that lists new
 * names every few seconds) grows its series for ever.
 */
export class MemberSeries<L extends string> {
  readonly #metric: Cumulative<L>;
  readonly #written = new Map<string, Map<string, Partial<Record<L, string>>>>();

  constructor(metric: Cumulative<L>) {
    this.#metric = metric;
  }

  /** Notes that `labels` (whose member ID is `id`) was written. */
  wrote(id: string, labels: Partial<Record<L, string>>): void {
    let sets = this.#written.get(id);
    if (!sets) {
      sets = new Map();
      this.#written.set(id, sets);
    }
    const key = JSON.stringify(labels);
    if (!sets.has(key)) sets.set(key, labels);
  }

  /** Removes every series of a member ID not in `current`. */
  keepOnly(current: ReadonlySet<string>): void {
    for (const [id, sets] of this.#written) {
      if (current.has(id)) continue;
      for (const labels of sets.values()) this.#metric.remove(labels);
      this.#written.delete(id);
    }
  }

  /** How many member IDs have series now. */
  get members(): number {
    return this.#written.size;
  }
}
