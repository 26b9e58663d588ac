import { get } from './http.ts';

// Records the verdict over time: polls GET /healthz/etcd back to back (with TTL 0 every request is a
// round) while a scenario injects faults, so that a test asserts on the whole sequence, not the end.

/** One /healthz/etcd answer, reduced to what the scenario tests judge. */
export interface VerdictSample {
  /** ms from the phase's mark to when the request was sent (negative: sent before the mark). */
  readonly t: number;
  /** ms the request took. */
  readonly ms: number;
  readonly http: number;
  readonly status: string;
  /** Reason codes in the verdict's order (most severe first). */
  readonly codes: readonly string[];
  /** The reasons as CODE(member) or CODE. */
  readonly reasons: readonly string[];
  /** The reasons' messages (the errors etcd answered with are in them). */
  readonly messages: readonly string[];
  readonly leader: { readonly id: string; readonly name: string; readonly reachable?: boolean } | null;
  readonly quorum: { readonly voting: number; readonly required: number; readonly healthyVoting: number } | null;
}

interface RawSample extends Omit<VerdictSample, 't'> {
  readonly sentAt: number;
  readonly answeredAt: number;
}

interface Mark {
  readonly label: string;
  readonly at: number;
}

interface Body {
  status?: string;
  reasons?: { code: string; message?: string; member?: { name: string } | null }[];
  leader?: VerdictSample['leader'];
  quorum?: VerdictSample['quorum'];
}

function sampleOf(http: number, body: Body, sentAt: number, answeredAt: number): RawSample {
  const reasons = body.reasons ?? [];
  return {
    sentAt,
    answeredAt,
    ms: Math.round(answeredAt - sentAt),
    http,
    status: body.status ?? `http ${http}`,
    codes: reasons.map((r) => r.code),
    reasons: reasons.map((r) => (r.member?.name ? `${r.code}(${r.member.name})` : r.code)),
    messages: reasons.map((r) => r.message ?? ''),
    leader: body.leader ?? null,
    quorum: body.quorum ?? null,
  };
}

/** Polls a service's verdict until stopped; marks split the recording into phases. */
export class VerdictRecorder {
  readonly #url: string;
  readonly #raw: RawSample[] = [];
  readonly #marks: Mark[] = [];
  #running = false;
  #loop: Promise<void> = Promise.resolve();
  #listeners = new Set<() => void>();

  constructor(serviceUrl: string) {
    this.#url = `${serviceUrl}/healthz/etcd`;
  }

  /** Starts polling back to back. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = (async () => {
      while (this.#running) {
        const sentAt = performance.now();
        try {
          const got = await get(this.#url, { signal: AbortSignal.timeout(15_000) });
          this.#raw.push(sampleOf(got.status, typeof got.body === 'object' ? got.body : {}, sentAt, performance.now()));
        } catch (error) {
          this.#raw.push(sampleOf(0, { status: `error ${(error as Error).message}` }, sentAt, performance.now()));
        }
        for (const listener of this.#listeners) listener();
      }
    })();
  }

  /** Stops polling after the request in flight. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }

  /**
   * Starts a phase now. Call it once a fault is in place (so that every round sent after the mark saw
   * the fault), and right before starting a recovery (which takes effect gradually).
   */
  mark(label: string): void {
    if (this.#marks.some((m) => m.label === label)) throw new Error(`phase ${label} marked twice`);
    this.#marks.push({ label, at: performance.now() });
  }

  /**
   * The samples of a phase: those answered after its mark and before the next mark, with t relative to
   * its mark. A request sent just before the mark and answered after it belongs to the phase (t < 0):
   * its round may already have seen the fault.
   */
  phase(label: string): VerdictSample[] {
    const index = this.#marks.findIndex((m) => m.label === label);
    const mark = this.#marks[index];
    if (!mark) throw new Error(`no phase ${label}`);
    const end = this.#marks[index + 1]?.at ?? Infinity;
    return this.#raw
      .filter((s) => s.answeredAt >= mark.at && s.answeredAt < end)
      .map(({ sentAt, answeredAt: _, ...rest }) => ({ t: Math.round(sentAt - mark.at), ...rest }));
  }

  /** Labels of the phases so far. */
  get phases(): string[] {
    return this.#marks.map((m) => m.label);
  }

  /**
   * Waits for a sample of the current phase that passes test, and returns it, or null once timeoutMs
   * have passed: the phase's assertions then say what was not reached, with the whole record.
   */
  async until(test: (s: VerdictSample) => boolean, timeoutMs: number): Promise<VerdictSample | null> {
    const label = this.#marks.at(-1)?.label;
    if (!label) throw new Error('until() needs a mark first');
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.phase(label).find(test);
      if (found) return found;
      if (!this.#running || performance.now() > deadline) return null;
      await this.#next(deadline - performance.now());
    }
  }

  /** Waits until the current phase holds `count` more samples and at least `ms` have passed: an observation window. */
  async observe(ms: number, count = 3): Promise<void> {
    const until = performance.now() + ms;
    const target = this.#raw.length + count;
    while (this.#running && (performance.now() < until || this.#raw.length < target)) await this.#next(Math.max(10, until - performance.now()));
  }

  // The next sample, or timeoutMs, whichever comes first.
  #next(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      this.#listeners.add(done);
    });
  }
}

function runKey(s: VerdictSample): string {
  const leader = s.leader ? `${s.leader.name || s.leader.id}${s.leader.reachable === false ? ' (unreachable)' : ''}` : '-';
  const quorum = s.quorum ? `${s.quorum.healthyVoting}/${s.quorum.voting}` : '?';
  return `${s.status.padEnd(9)} leader=${leader.padEnd(4)} healthy=${quorum} ${s.reasons.join(' ') || '(no reasons)'}`;
}

/** The distinct member errors in the samples' messages (after "member at endpoint: "), for the record. */
export function distinctErrors(samples: readonly VerdictSample[]): string[] {
  const errors = samples.flatMap((s) => s.messages.map((m) => m.replace(/^.*? at \S+: /, '').replace(/https?:\/\/[\d.]+:\d+/g, '<url>')));
  return [...new Set(errors.filter((e) => e !== ''))];
}

/** The samples as runs of equal verdicts, one line each: time range, count, status, leader, reasons. */
export function formatSamples(samples: readonly VerdictSample[]): string {
  const lines: string[] = [];
  let i = 0;
  while (i < samples.length) {
    const first = samples[i] as VerdictSample;
    let j = i;
    while (j + 1 < samples.length && runKey(samples[j + 1] as VerdictSample) === runKey(first)) j++;
    const last = samples[j] as VerdictSample;
    const span = `${first.t}..${last.t + last.ms}ms`.padStart(16);
    lines.push(`  ${span} x${String(j - i + 1).padEnd(3)} ${runKey(first)}`);
    i = j + 1;
  }
  return lines.join('\n') || '  (no samples)';
}
