import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { noop } from 'cockatiel';
import { AlarmAction, AlarmType, Etcd3 } from 'etcd3';
import type { PkiFiles } from '#lab/certs/pki.ts';

const HEALTH_KEY = Buffer.from('health');
const DEADLINE_MS = 5000;

/**
 * The bare client the cold answers are compared with: etcd3 clients, one per member, with the same TLS
 * files and with etcd3's retries and circuit breaker off (as the service has them), each call with a
 * deadline.
 */
export class RawEtcd {
  readonly #clients: Etcd3[];

  constructor(endpoints: readonly string[], pki: Pick<PkiFiles, 'caFile' | 'clientCertFile' | 'clientKeyFile'>) {
    const credentials = {
      rootCertificate: readFileSync(pki.caFile),
      certChain: readFileSync(pki.clientCertFile),
      privateKey: readFileSync(pki.clientKeyFile),
    };
    this.#clients = endpoints.map(
      (endpoint) =>
        new Etcd3({
          hosts: [endpoint],
          credentials,
          faultHandling: { host: () => noop, global: noop },
          defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + DEADLINE_MS }),
        }),
    );
  }

  /**
   * The baseline of a cold answer: the service's whole call set from a bare client, in parallel, as a
   * round makes it: Status, a linearizable Range('health') and MemberList on every member, plus the
   * alarm list (a raft proposal) on the first. Milliseconds until the last call is done.
   */
  async fullRound(): Promise<number> {
    const started = performance.now();
    const calls: Promise<unknown>[] = this.#clients.flatMap<Promise<unknown>>((c) => [c.maintenance.status(), this.#range(c), c.cluster.memberList({})]);
    const first = this.#clients[0];
    if (first) calls.push(first.maintenance.alarm({ action: AlarmAction.Get, memberID: 0, alarm: AlarmType.None }));
    await Promise.all(calls);
    return performance.now() - started;
  }

  #range(client: Etcd3) {
    return client.kv.range({ key: HEALTH_KEY, serializable: false, keys_only: true, limit: 1 });
  }

  /** Closes every client. Safe to call twice. */
  close(): void {
    for (const c of this.#clients) c.close();
    this.#clients.length = 0;
  }
}
