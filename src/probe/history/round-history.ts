import type { ProbeErrorCode } from '../outcome.ts';
import type { MemberRef } from '../reason.ts';
import type { RoundRecord } from './round-record.ts';
import { lostQuorum, transitionsBetween, type Transition } from './transitions.ts';

/** How much history to keep: its window, a cap on its memory, and how far back the verdict's own checks look. */
export interface HistoryLimits {
  /** What `/history` covers (ETCD_PROBE_HISTORY_WINDOW). */
  readonly windowMs: number;
  /** The estimated memory the records may take (config's historyMaxBytes); the oldest go first. */
  readonly maxBytes: number;
  /** The longest window a verdict check reads (leader changes, flapping); records are kept that long at least. */
  readonly checksMs: number;
}

/** A member's last failure, kept after it recovers and after its round ages out of the window. */
export interface LastFailure {
  readonly member: MemberRef;
  readonly at: number;
  readonly code: ProbeErrorCode | null;
  readonly message: string;
}

/**
 * Estimated bytes of one record in V8's heap: the record and member objects and their arrays (IDs and
 * names are shared with the round, not copied). Calibrated with scripts/bench/history-memory.ts (heap growth after GC against the cap), held by test/probe/history/round-history-memory.test.ts.
 */
export function estimateBytes(record: RoundRecord): number {
  return 280 + 192 * record.members.length + 60 * record.alarms.length;
}

/**
 * Recent rounds, in memory only (lost on restart), bounded by a window and a memory cap. Owned by the
 * prober, which adds one record per round; read by the verdict's history checks and by `/history`.
 */
export class RoundHistory {
  readonly limits: HistoryLimits;
  #records: RoundRecord[] = [];
  #first = 0;
  #bytes = 0;
  #lastLed: RoundRecord | null = null;
  /** A round since #lastLed had no quorum: the next leader change ends an outage, not a flaky election. */
  #quorumLostSinceLed = false;
  readonly #lastFailures = new Map<string, LastFailure>();
  #added = 0;

  constructor(limits: HistoryLimits) {
    this.limits = limits;
  }

  /** Adds a round's record and its members' failure messages; returns what changed since the previous round. */
  add(record: RoundRecord, failures: ReadonlyMap<string, string> = new Map()): Transition[] {
    const previous = this.latest();
    const changes = transitionsBetween(previous, record, this.#lastLed, this.#quorumLostSinceLed);
    if (record.leader) {
      this.#lastLed = record;
      this.#quorumLostSinceLed = false;
    } else if (lostQuorum(record)) this.#quorumLostSinceLed = true;
    for (const m of record.members) {
      if (m.state === 'healthy' || m.state === 'unknown') continue;
      this.#lastFailures.set(m.id, { member: { id: m.id, name: m.name }, at: record.at, code: m.failure, message: failures.get(m.id) ?? m.failure ?? m.state });
    }
    this.#records.push(record);
    this.#bytes += estimateBytes(record);
    this.#added++;
    this.#evict(record.at);
    return changes;
  }

  /** The records from `since` (epoch ms) on, oldest first. */
  records(since = Number.NEGATIVE_INFINITY): readonly RoundRecord[] {
    let lo = this.#first;
    let hi = this.#records.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#records[mid]?.at ?? 0) < since) lo = mid + 1;
      else hi = mid;
    }
    return this.#records.slice(lo);
  }

  /** The latest record, or null before the first round. */
  latest(): RoundRecord | null {
    return this.#records.length > this.#first ? (this.#records.at(-1) ?? null) : null;
  }

  /** Every member's last failure, including members whose failing rounds have aged out. */
  lastFailures(): ReadonlyMap<string, LastFailure> {
    return this.#lastFailures;
  }

  /** How many records are held, and their estimated bytes. */
  get size(): { readonly records: number; readonly bytes: number; readonly added: number } {
    return { records: this.#records.length - this.#first, bytes: this.#bytes, added: this.#added };
  }

  #evict(now: number): void {
    const keepFrom = now - Math.max(this.limits.windowMs, this.limits.checksMs);
    while (this.#records.length - this.#first > 1) {
      const oldest = this.#records[this.#first] as RoundRecord;
      if (oldest.at >= keepFrom && this.#bytes <= this.limits.maxBytes) break;
      this.#bytes -= estimateBytes(oldest);
      this.#first++;
    }
    // Drop the evicted slots now and then, so that the array does not grow for ever (amortised O(1)).
    if (this.#first > 1024 && this.#first * 2 > this.#records.length) {
      this.#records = this.#records.slice(this.#first);
      this.#first = 0;
    }
  }
}
