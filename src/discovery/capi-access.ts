import { loadKubeConfig, KubeConnection } from '../kube/kube-connection.ts';
import type { ApiEndpoint, CapiClusterRef } from '../config/config.ts';
import { checkServerAgainstEndpoint } from '../kube/api-endpoint.ts';
import type { DialGuard } from '../kube/dial-guard.ts';
import { KubeError } from '../kube/kube-error.ts';
import { mintClientCertificate, MintError, type MintedCertificate } from '../tls/mint-client-certificate.ts';
import { pemEntry, tlsFromSecret } from './secret-tls.ts';
import { sameTls, type TlsMaterial } from '../tls/tls-files.ts';
import type { WorkloadAccess, WorkloadCredentials } from './workload-access.ts';

/** Cluster API mode's settings. */
export interface CapiAccessOptions {
  /** The management cluster, where the Cluster and its secrets live. */
  readonly management: KubeConnection;
  /** The Cluster; its controlPlaneEndpoint when a listing gave it (else the Cluster is read for it). */
  readonly cluster: CapiClusterRef;
  /** What the workload kubeconfig may not reach (ETCD_PROBE_DENY_CIDRS); null: no list. */
  readonly dialGuard?: DialGuard | null;
  /** How often the secrets are re-read (a rotated CA or kubeconfig is picked up). */
  readonly refreshMs: number;
  /** Epoch ms. */
  readonly now: () => number;
}

/** The common name of minted certificates. */
export const MINTED_COMMON_NAME = 'etcd-probe';

/**
 * Cluster API mode: the workload kubeconfig from Secret `<name>-kubeconfig` (key `value`) and etcd's CA
 * from `<name>-etcd`; a client certificate is minted from that CA in memory (as KCP does) and renewed
 * before it expires. Without the CA key (external etcd), `<name>-apiserver-etcd-client` is used instead.
 * The CA key is fetched only when a certificate may have to be minted (none yet, renewal due, or the
 * Secret changed, which is noticed from its metadata alone), and its bytes are zeroed once used.
 * The kubeconfig's server must be the Cluster's spec.controlPlaneEndpoint (api-endpoint.ts): a Secret
 * naming any other address is not used, and nothing is sent there.
 */
export class CapiAccess implements WorkloadAccess {
  readonly #options: CapiAccessOptions;
  #current: WorkloadCredentials | null = null;
  #kubeconfigText: string | null = null;
  #minted: MintedCertificate | null = null;
  /** The resourceVersion of `<name>-etcd` when it was last read whole. */
  #etcdVersion: string | null = null;
  #readAt = 0;

  constructor(options: CapiAccessOptions) {
    this.#options = options;
  }

  get cluster(): string {
    return `${this.#options.cluster.namespace}/${this.#options.cluster.name}`;
  }

  async resolve(timeoutMs: number): Promise<WorkloadCredentials> {
    const now = this.#options.now();
    const renew = this.#minted !== null && now >= this.#minted.renewAt;
    if (this.#current && !renew && now - this.#readAt < this.#options.refreshMs) return this.#current;
    const { namespace, name } = this.#options.cluster;
    const management = this.#options.management;
    const [kubeconfigData, etcdVersion, endpoint] = await Promise.all([
      management.readSecret(namespace, `${name}-kubeconfig`, timeoutMs),
      management.readSecretVersion(namespace, `${name}-etcd`, timeoutMs),
      this.#endpoint(timeoutMs),
    ]);
    const kubeconfigText = kubeconfigData.get('value')?.toString('utf8');
    if (!kubeconfigText) throw new KubeError('invalid-secret', `secret ${namespace}/${name}-kubeconfig: key value is missing or empty`);
    const label = `secret ${namespace}/${name}-kubeconfig`;
    const previous = this.#current;
    const connectionChanged = kubeconfigText !== this.#kubeconfigText;
    const config = !connectionChanged && previous ? previous.connection.config : loadKubeConfig({ kind: 'secret', text: kubeconfigText, label });
    // Checked every time (the Cluster's endpoint may have changed too), before anything is minted or dialled.
    // A mismatch keeps nothing of the Secret: the round reports it, and the next one reads again.
    checkServerAgainstEndpoint(config.getCurrentCluster()?.server ?? '', endpoint, this.cluster, label);
    // A minted certificate stands while <name>-etcd is unchanged (by its version) and not due; without
    // the CA key (external etcd) there is nothing to mint, and the client Secret is re-read every time.
    const unchanged = previous !== null && !renew && this.#minted !== null && etcdVersion !== '' && etcdVersion === this.#etcdVersion;
    const tls = unchanged ? previous.tls : await this.#readEtcdSecret(etcdVersion, timeoutMs, now);
    this.#readAt = now;

    const connection = !connectionChanged && previous ? previous.connection : new KubeConnection(config, { tenant: true, guard: this.#options.dialGuard ?? null });
    this.#kubeconfigText = kubeconfigText;
    const tlsChanged = !previous || previous.tls !== tls;
    this.#current = connectionChanged || tlsChanged ? { connection, tls, generation: (previous?.generation ?? 0) + 1 } : previous;
    return this.#current;
  }

  /** The Cluster's controlPlaneEndpoint: as listed (fleet), else read from the Cluster each time the Secrets are. */
  async #endpoint(timeoutMs: number): Promise<ApiEndpoint | null> {
    const { cluster, management } = this.#options;
    if (cluster.controlPlaneEndpoint !== undefined) return cluster.controlPlaneEndpoint;
    const facts = await management.readCapiCluster(cluster.namespace, cluster.name, timeoutMs);
    return facts?.controlPlaneEndpoint ?? null;
  }

  async #readEtcdSecret(version: string, timeoutMs: number, now: number): Promise<TlsMaterial> {
    const { namespace, name } = this.#options.cluster;
    const etcdData = await this.#options.management.readSecret(namespace, `${name}-etcd`, timeoutMs);
    try {
      const caCert = pemEntry(etcdData, 'tls.crt', `secret ${namespace}/${name}-etcd`, 'cert');
      const tls = await this.#tls(etcdData, caCert, timeoutMs, now);
      this.#etcdVersion = version;
      return tls;
    } finally {
      // The CA key signs anything etcd trusts: no copy of ours outlives the mint.
      etcdData.get('tls.key')?.fill(0);
    }
  }

  async #tls(etcdData: ReadonlyMap<string, Buffer>, caCert: Buffer, timeoutMs: number, now: number): Promise<TlsMaterial> {
    const { namespace, name } = this.#options.cluster;
    if (!etcdData.get('tls.key')?.length) {
      // External etcd: Cluster API holds no CA key, only the API server's client certificate.
      const client = await this.#options.management.readSecret(namespace, `${name}-apiserver-etcd-client`, timeoutMs);
      const what = `secret ${namespace}/${name}-apiserver-etcd-client`;
      const fromSecret = tlsFromSecret(new Map([...client, ['ca.crt', caCert]]), what);
      this.#minted = null;
      return this.#current && sameTls(this.#current.tls, fromSecret) ? this.#current.tls : fromSecret;
    }
    // The current certificate stays while the same CA signed it (its key belongs to that CA certificate).
    if (this.#minted && this.#current?.tls.ca?.equals(caCert) && now < this.#minted.renewAt) return this.#current.tls;
    const caKey = pemEntry(etcdData, 'tls.key', `secret ${namespace}/${name}-etcd`, 'key');
    try {
      this.#minted = await mintClientCertificate({ caCert, caKey, commonName: MINTED_COMMON_NAME, now });
    } catch (error) {
      if (error instanceof MintError) throw new KubeError('invalid-secret', `secret ${namespace}/${name}-etcd: ${error.message}`);
      throw error;
    }
    return { ca: caCert, cert: this.#minted.cert, key: this.#minted.key };
  }
}
