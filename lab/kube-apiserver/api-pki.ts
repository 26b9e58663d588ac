import { issue, makeCa, type PemPair } from '#lab/certs/pki.ts';

// The management API server's own certificates, named as kubeadm names them: a CA `kubernetes`, a serving
// certificate for the in-cluster service names and 127.0.0.1, and the admin's client certificate.

/** The admin user (full access, by client certificate). */
export const ADMIN = 'kubernetes-admin';
/** The common name of the stand-in's own CA (its client certificates' issuer). */
export const API_CA = 'kubernetes';

/** The CA, the serving pair it signed, and the admin's client pair. */
export interface ApiServerPki {
  readonly ca: PemPair;
  readonly server: PemPair;
  readonly client: PemPair;
}

/** Makes a fresh CA and the server and admin certificates it signs. */
export async function makeApiServerPki(): Promise<ApiServerPki> {
  const ca = await makeCa(API_CA);
  const server = await issue(ca, {
    commonName: 'kube-apiserver',
    server: true,
    dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
    ips: ['127.0.0.1'],
  });
  const client = await issue(ca, { commonName: ADMIN, client: true });
  return { ca, server, client };
}
