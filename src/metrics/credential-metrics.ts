import { Counter, Gauge, type Registry } from 'prom-client';

/** Which credentials a reload concerns. */
export type CredentialSet = 'etcd-client' | 'listener' | 'auth-token';

/** Metrics of the service's own credentials and listener: reloads, broken files, expiry, dropped connections. */
export class CredentialMetrics {
  readonly #errors: Counter<'file'>;
  readonly #reloads: Counter<'credentials'>;
  readonly #notAfter: Gauge<'credentials'>;
  readonly #dropped: Counter;

  constructor(registry: Registry) {
    this.#errors = new Counter({ name: 'etcd_probe_credential_reload_errors_total', help: 'Changed credential files (certificates, keys, token) found unusable; the previous ones stay in use.', labelNames: ['file'], registers: [registry] });
    this.#reloads = new Counter({ name: 'etcd_probe_credential_reloads_total', help: 'Changed credential files taken into use.', labelNames: ['credentials'], registers: [registry] });
    this.#notAfter = new Gauge({ name: 'etcd_probe_tls_cert_not_after_seconds', help: 'When the certificate in use expires (Unix time).', labelNames: ['credentials'], registers: [registry] });
    this.#dropped = new Counter({ name: 'etcd_probe_connections_dropped_total', help: 'Connections closed unanswered because ETCD_PROBE_MAX_CONNECTIONS were open.', registers: [registry] });
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
