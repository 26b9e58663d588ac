/** A round waiting for a slot: whose it is, and whether a request waits for it now. */
interface Waiter {
  readonly tenant: string;
  readonly start: () => void;
  readonly urgent: () => boolean;
}

const NEVER = () => false;

/** What a round asks the limiter for: its tenant (a Cluster's namespace), and whether a request waits for it. */
export interface RoundTurn {
  readonly tenant?: string;
  readonly urgent?: () => boolean;
}

/**
 * Bounds the probe rounds in flight across every cluster of a fleet (ETCD_PROBE_MAX_ROUNDS_IN_FLIGHT), and
 * shares them fairly between tenants (a Cluster's namespace): a round waits for a slot, so that 500
 * clusters going stale together cost the machine a bounded burst; while another tenant's rounds wait, no
 * tenant holds more than three quarters of the slots, and a freed slot goes round-robin to the tenants
 * waiting (a round that a request waits for first, within that). A round holds its slot for at most
 * `holdMs`: one that hangs longer (its deadlines should have ended it) goes on without it. So one tenant's
 * clusters that never answer cannot take every slot, nor keep one.
 */
export class RoundLimiter {
  readonly #max: number;
  readonly #tenantMax: number;
  readonly #holdMs: number;
  #running = 0;
  readonly #byTenant = new Map<string, number>();
  readonly #waiting: Waiter[] = [];
  /** Tenants in the order they were last served: the next slot goes to the one served longest ago. */
  readonly #served = new Map<string, number>();
  #turn = 0;

  constructor(max: number, holdMs = Number.POSITIVE_INFINITY) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a limit of rounds in flight must be a positive integer, not ${max}`);
    this.#max = max;
    this.#tenantMax = Math.max(1, Math.ceil((max * 3) / 4));
    this.#holdMs = holdMs;
  }

  /** Runs `round` when a slot is free for its tenant; the slot is freed when it ends, or after holdMs. */
  async run<T>(round: () => Promise<T>, turn: RoundTurn | (() => boolean) = {}): Promise<T> {
    const { tenant = '', urgent = NEVER } = typeof turn === 'function' ? { urgent: turn } : turn;
    if (this.#mayStart(tenant)) this.#take(tenant);
    else await new Promise<void>((start) => this.#waiting.push({ tenant, start, urgent }));
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#free(tenant);
    };
    const timer = Number.isFinite(this.#holdMs) ? setTimeout(release, this.#holdMs) : null;
    timer?.unref();
    try {
      return await round();
    } finally {
      if (timer) clearTimeout(timer);
      release();
    }
  }

  /** Rounds running now, and rounds waiting for a slot. */
  get load(): { readonly running: number; readonly waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  #mayStart(tenant: string): boolean {
    if (this.#running >= this.#max) return false;
    return (this.#byTenant.get(tenant) ?? 0) < this.#tenantMax || !this.#waiting.some((w) => w.tenant !== tenant);
  }

  #take(tenant: string): void {
    this.#running++;
    this.#byTenant.set(tenant, (this.#byTenant.get(tenant) ?? 0) + 1);
    this.#served.set(tenant, ++this.#turn);
  }

  #free(tenant: string): void {
    this.#running--;
    const left = (this.#byTenant.get(tenant) ?? 1) - 1;
    if (left > 0) this.#byTenant.set(tenant, left);
    else this.#byTenant.delete(tenant);
    for (let next = this.#next(); next !== null; next = this.#next()) {
      this.#waiting.splice(this.#waiting.indexOf(next), 1);
      this.#take(next.tenant);
      next.start();
    }
  }

  /** The waiter to start now, if a slot is free for one: urgent first, then the tenant served longest ago. */
  #next(): Waiter | null {
    if (this.#running >= this.#max) return null;
    const eligible = this.#waiting.filter((w) => this.#mayStart(w.tenant));
    if (eligible.length === 0) return null;
    const urgent = eligible.filter((w) => w.urgent());
    const pool = urgent.length > 0 ? urgent : eligible;
    return pool.reduce((best, w) => ((this.#served.get(w.tenant) ?? 0) < (this.#served.get(best.tenant) ?? 0) ? w : best));
  }
}
