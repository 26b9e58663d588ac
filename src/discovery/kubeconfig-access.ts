import { KubeConnection } from '../kube/kube-connection.ts';
import type { TlsProvider } from '../tls/tls-provider.ts';
import { tlsFromSecret } from './secret-tls.ts';
import { sameTls } from '../tls/tls-files.ts';
import type { WorkloadAccess, WorkloadCredentials } from './workload-access.ts';

/** A Secret named `namespace/name`. */
export interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

/** Workload-kubeconfig mode's settings. */
export interface KubeconfigAccessOptions {
  readonly connection: KubeConnection;
  /** etcd client TLS from files (the core's ETCD_PROBE_CACERT/CERT/KEY), re-read when they change ... */
  readonly tlsFiles: TlsProvider;
  /** ... or from this Secret (ca.crt, tls.crt, tls.key), re-read every refreshMs. */
  readonly tlsSecret: SecretRef | null;
  readonly refreshMs: number;
  /** Epoch ms. */
  readonly now: () => number;
}

/** Workload kubeconfig mode: a fixed API connection; etcd TLS from files or from a Secret re-read now and then. */
export class KubeconfigAccess implements WorkloadAccess {
  readonly #options: KubeconfigAccessOptions;
  #current: WorkloadCredentials | null = null;
  #readAt = 0;

  constructor(options: KubeconfigAccessOptions) {
    this.#options = options;
  }

  get cluster(): string {
    return this.#options.connection.server;
  }

  async resolve(timeoutMs: number): Promise<WorkloadCredentials> {
    const { connection, tlsSecret, tlsFiles, refreshMs, now } = this.#options;
    if (!tlsSecret) {
      // New files mean a new generation: the source's targets change key, so old clients are replaced.
      if (!this.#current || tlsFiles.refresh()) {
        this.#current = { connection, tls: tlsFiles.current(), generation: (this.#current?.generation ?? 0) + 1 };
      }
      return this.#current;
    }
    if (this.#current && now() - this.#readAt < refreshMs) return this.#current;
    const data = await connection.readSecret(tlsSecret.namespace, tlsSecret.name, timeoutMs);
    const tls = tlsFromSecret(data, `secret ${tlsSecret.namespace}/${tlsSecret.name}`);
    this.#readAt = now();
    const previous = this.#current;
    const same = previous && sameTls(previous.tls, tls);
    this.#current = same ? previous : { connection, tls, generation: (previous?.generation ?? 0) + 1 };
    return this.#current;
  }
}

