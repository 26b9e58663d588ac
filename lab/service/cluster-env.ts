import type { PkiFiles } from '#lab/certs/pki.ts';

/** The settings (ETCD_PROBE_* variables) that point etcd-probe at a lab cluster, over TLS when it has a PKI. */
export function clusterEnv(cluster: { endpoints: string; pki: PkiFiles | null }): Record<string, string> {
  const env: Record<string, string> = { ETCD_PROBE_ENDPOINTS: cluster.endpoints };
  if (cluster.pki) {
    env.ETCD_PROBE_CACERT = cluster.pki.caFile;
    env.ETCD_PROBE_CERT = cluster.pki.clientCertFile;
    env.ETCD_PROBE_KEY = cluster.pki.clientKeyFile;
  }
  return env;
}
