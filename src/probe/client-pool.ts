import type { MemberClient } from './member-client.ts';
import type { ProbeTarget } from './probe-target.ts';

/**
 * Owns one client per target key, reused across rounds: clients of targets that leave are closed,
 * new targets get new clients, and close() closes them all.
 */
export class ClientPool {
  readonly #connect: (target: ProbeTarget) => MemberClient;
  readonly #clients = new Map<string, MemberClient>();
  #closed = false;

  constructor(connect: (target: ProbeTarget) => MemberClient) {
    this.#connect = connect;
  }

  /** The client for a target, opened on first use. */
  clientFor(target: ProbeTarget): MemberClient {
    if (this.#closed) throw new Error('client pool is closed');
    let client = this.#clients.get(target.key);
    if (!client) {
      client = this.#connect(target);
      this.#clients.set(target.key, client);
    }
    return client;
  }

  /** Closes the clients of every target not in keys. */
  retain(keys: ReadonlySet<string>): void {
    for (const [key, client] of this.#clients) {
      if (!keys.has(key)) {
        client.close();
        this.#clients.delete(key);
      }
    }
  }

  /** Closes every client's connections; the clients stay, and dial again when next used. */
  async release(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((client) => client.release()));
  }

  /** Closes and forgets every client, e.g. when credentials change. */
  reset(): void {
    this.retain(new Set());
  }

  /** How many clients are open. */
  get size(): number {
    return this.#clients.size;
  }

  /** Closes every client; the pool cannot be used afterwards. */
  close(): void {
    this.reset();
    this.#closed = true;
  }
}
