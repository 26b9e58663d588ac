import { X509Certificate } from 'node:crypto';

/** A PEM certificate's notAfter as Unix seconds: what etcd_probe_tls_cert_not_after_seconds must carry for it. */
export function notAfterSeconds(pem: string | Buffer): number {
  return Date.parse(new X509Certificate(pem).validTo) / 1000;
}

/**
 * The `etcd_probe_tls_cert_not_after_seconds{credentials="etcd-client"}` series of a /metrics text, by
 * their `cluster` label ('' for the single-cluster service, whose series carry none).
 */
export function clientCertExpiries(metricsText: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const match of metricsText.matchAll(/^etcd_probe_tls_cert_not_after_seconds\{([^}]*)\} (\S+)$/gm)) {
    const labels = match[1] ?? '';
    if (!labels.includes('credentials="etcd-client"')) continue;
    found[/cluster="([^"]+)"/.exec(labels)?.[1] ?? ''] = Number(match[2]);
  }
  return found;
}
