import { Counter, Gauge, type Registry } from 'prom-client';

/** Which credentials a reload concerns. */
export type CredentialSet = 'etcd-client' | 'listener' | 'auth-token';

/** Metrics of the service's own credentials and listener: reloads, broken files, expiry, dropped connections. */
export class CredentialMetrics {
  readonly #errors: Counter<'file'>;
  readonly #reloads: Counter<'credentials'>;
  readonly #notAfter: Gauge<'credentials'>;
  readonly #dropped: Counter;
  readonly #droppedPerClient: Counter;
  readonly #registry: Registry;
  #tokenUsable: Gauge | null = null;

  constructor(registry: Registry) {
    this.#registry = registry;
    this.#errors = new Counter({ name: 'etcd_probe_credential_reload_errors_total', help: 'Changed credential files (certificates, keys, token) found unusable; certificates keep the previous ones, a token file fails closed.', labelNames: ['file'], registers: [registry] });
    this.#reloads = new Counter({ name: 'etcd_probe_credential_reloads_total', help: 'Changed credential files taken into use.', labelNames: ['credentials'], registers: [registry] });
    this.#notAfter = new Gauge({ name: 'etcd_probe_tls_cert_not_after_seconds', help: 'When the certificate in use expires (Unix time).', labelNames: ['credentials'], registers: [registry] });
    this.#dropped = new Counter({ name: 'etcd_probe_connections_dropped_total', help: 'Connections closed unanswered because ETCD_PROBE_MAX_CONNECTIONS were open.', registers: [registry] });
    this.#droppedPerClient = new Counter({
      name: 'etcd_probe_connections_dropped_per_client_total',
      help: 'Connections closed unanswered because their address already held ETCD_PROBE_MAX_CONNECTIONS_PER_CLIENT.',
      registers: [registry],
    });
  }

  /** Whether the token file holds a usable token (exported only when a token file is set). */
  tokenUsable(usable: boolean): void {
    // Registered on first use: without a token file there is no token to be usable or not.
    this.#tokenUsable ??= new Gauge({
      name: 'etcd_probe_auth_token_usable',
      help: '1 while the bearer token file holds a usable token; 0 while it is unusable and every guarded request is refused.',
      registers: [this.#registry],
    });
    this.#tokenUsable.set(usable ? 1 : 0);
  }

  /** Counts a connection refused by the per-client connection limit. */
  connectionDroppedPerClient(): void {
    this.#droppedPerClient.inc();
  }

  /** Counts a broken file. */
  reloadFailed(file: string): void {
    this.#errors.inc({ file });
  }

  /** Counts a reload taken into use. */
  reloaded(credentials: CredentialSet): void {
    this.#reloads.inc({ credentials });
  }

  /** Sets the expiry of the certificate in use. */
  certificateExpires(credentials: CredentialSet, notAfter: Date): void {
    this.#notAfter.set({ credentials }, notAfter.getTime() / 1000);
  }

  /** Counts a connection refused by the connection limit. */
  connectionDropped(): void {
    this.#dropped.inc();
  }
}
