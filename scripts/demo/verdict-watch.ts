import { setTimeout as delay } from 'node:timers/promises';

// What the demo shows after each action: the verdict of /healthz/etcd?fresh=true, polled until it has
// changed and held for two more rounds (or a deadline passes), each new verdict printed as it appears.

/** A verdict as the demo prints it. */
export interface Verdict {
  readonly status: string;
  /** Reason codes, each with the member it names: "MEMBER_UNREACHABLE m3". */
  readonly reasons: readonly string[];
  readonly checkedAt: string;
}

interface HealthzBody {
  status?: unknown;
  checkedAt?: unknown;
  reasons?: { code?: unknown; member?: { name?: unknown } }[];
}

/** Reads one fresh verdict (a new probe round, at most one per second, shared with other callers). */
export async function fetchVerdict(base: string): Promise<Verdict> {
  const response = await fetch(`${base}/healthz/etcd?fresh=true`, { signal: AbortSignal.timeout(15_000) });
  const body = (await response.json()) as HealthzBody;
  if (typeof body.status !== 'string') throw new Error(`/healthz/etcd answered ${response.status} without a status`);
  const reasons = (body.reasons ?? []).map((r) => {
    const member = typeof r.member?.name === 'string' && r.member.name !== '' ? ` ${r.member.name}` : '';
    return `${String(r.code)}${member}`;
  });
  return { status: body.status, reasons, checkedAt: String(body.checkedAt) };
}

/** "degraded: MEMBER_UNREACHABLE m3" or "healthy". */
export function describeVerdict(v: Verdict): string {
  return v.reasons.length > 0 ? `${v.status}: ${v.reasons.join(', ')}` : v.status;
}

function sameVerdict(a: Verdict | null, b: Verdict): boolean {
  return a !== null && a.status === b.status && a.reasons.join() === b.reasons.join();
}

/** Follows the verdict across the demo's actions; remembers the last one seen. */
export class VerdictWatch {
  readonly #base: string;
  readonly #print: (line: string) => void;
  #last: Verdict | null = null;

  constructor(base: string, print: (line: string) => void) {
    this.#base = base;
    this.#print = print;
  }

  /** Prints the verdict now. */
  async now(): Promise<void> {
    const v = await fetchVerdict(this.#base);
    this.#last = v;
    this.#print(`  verdict: ${describeVerdict(v)}`);
  }

  /**
   * After an action: polls until the verdict differs from the last one seen and then holds for two more
   * rounds, printing each new verdict with the time since the action; gives up after maxMs.
   */
  async settle(maxMs = 12_000): Promise<void> {
    const started = performance.now();
    const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)}s`;
    let changed = false;
    let heldRounds = 0;
    let lastRound = '';
    while (performance.now() - started < maxMs) {
      const v = await fetchVerdict(this.#base);
      if (v.checkedAt === lastRound) {
        // The same round again (fresh rounds are at most one per second): ask again shortly.
        await delay(250);
        continue;
      }
      lastRound = v.checkedAt;
      if (!sameVerdict(this.#last, v)) {
        this.#last = v;
        changed = true;
        heldRounds = 0;
        this.#print(`  verdict after ${elapsed()}: ${describeVerdict(v)}`);
      } else if (changed && ++heldRounds >= 2) {
        return;
      }
    }
    if (!changed && this.#last) this.#print(`  verdict after ${elapsed()}: still ${describeVerdict(this.#last)}`);
  }
}
