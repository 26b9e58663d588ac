import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { PkiFiles } from '#lab/certs/pki.ts';
import { capiCluster, type ClusterPhase, type PhaseOptions } from './capi-clusters.ts';
import { etcdPod } from './etcd-pods.ts';
import { controlPlaneNode } from './nodes.ts';
import { quickCa, quickLeaf, type QuickCa } from './quick-pki.ts';
import { capiSecret } from './secrets.ts';
import { FakeKubeApiServer } from './server.ts';
import type { TlsRelay } from './tls-relay.ts';
import type { WorkloadAuth, WorkloadCluster } from './workload-cluster.ts';

// A STAND-IN Cluster API fleet in one process: the management cluster (a FakeKubeApiServer with
// clusterApi) holding, per workload cluster, a `Cluster` and the Secrets `<name>-kubeconfig` (key value: a
// kubeconfig that passes etcd-probe's Secret restrictions, pointing at the workload's own API server in
// the same listener) and `<name>-etcd` (an etcd CA of the cluster's own: tls.crt, tls.key). Each workload
// API server has a control-plane node and an `etcd-<node>` pod per member of one of a few real etcd
// clusters (the backends, round-robin), named after the member as kubeadm names them, and each pod's
// port-forward leads to that member through a TLS relay (tls-relay.ts) that shows the client the
// workload's own etcd PKI. Workload clusters sharing a backend report the same members.

/** A real etcd cluster that workload clusters' port-forwards lead to (an EtcdCluster fits). */
export interface FleetBackend {
  readonly members: readonly { readonly name: string; readonly clientUrl: string }[];
  /** Its TLS files; null when its members speak plain http (the relay then dials them in clear). */
  readonly pki: PkiFiles | null;
}

/** Options of FakeFleet.start. */
export interface FleetOptions {
  readonly backends: readonly FleetBackend[];
  /** Clusters made at start, named cluster-001, cluster-002, ... (default none). */
  readonly clusters?: number;
  /** Namespaces the clusters made at start are spread over, in turn (default ['default']). */
  readonly namespaces?: readonly string[];
  /** Labels of the i-th cluster made at start (from 0). */
  readonly labels?: (index: number) => Record<string, string>;
  /** What the workload kubeconfigs authenticate with (default a client certificate, as Cluster API's). */
  readonly auth?: WorkloadAuth;
}

/** Options of addCluster. */
export interface AddClusterOptions {
  /** Index into the backends (default: the next in turn). */
  readonly backend?: number;
  /** Default Provisioned. The phase is the Cluster object's only: the workload API and Secrets exist whatever it says. */
  readonly phase?: ClusterPhase;
  readonly controlPlaneReady?: boolean;
  readonly paused?: boolean;
  readonly labels?: Record<string, string>;
  readonly topology?: { readonly class: string; readonly version: string };
}

/** One workload cluster of the fleet. */
export interface FleetCluster {
  readonly namespace: string;
  readonly name: string;
  /** Its API server (objects, users, outages). */
  readonly workload: WorkloadCluster;
  /** Its etcd CA, as in `<name>-etcd` (cert and key PEM). */
  readonly etcdCa: QuickCa;
  readonly backend: FleetBackend;
  /** Why handshakes at its TLS relay failed so far, oldest first (see TlsRelay.onHandshakeFailure): e.g. UNABLE_TO_VERIFY_LEAF_SIGNATURE, NO_CERTIFICATE. */
  readonly tlsFailures: string[];
}

interface Upstream {
  readonly context: SecureContext;
}

/** A Cluster API management cluster with workload clusters on a few real etcd clusters (see the header). */
export class FakeFleet {
  /** The management cluster's API server (and the listener of every workload API server). */
  readonly api: FakeKubeApiServer;
  readonly #backends: readonly FleetBackend[];
  readonly #upstreams: (Upstream | null)[];
  readonly #auth: WorkloadAuth;
  readonly #clusters = new Map<string, FleetCluster>();
  #turn = 0;

  private constructor(api: FakeKubeApiServer, options: FleetOptions) {
    if (options.backends.length === 0) throw new Error('FakeFleet needs at least one backend etcd cluster');
    this.api = api;
    this.#backends = options.backends;
    this.#auth = options.auth ?? 'cert';
    // The relay dials a member as a client of its cluster; its TLS context is made once for all workload clusters.
    this.#upstreams = options.backends.map(({ pki }) =>
      pki ? { context: createSecureContext({ ca: readFileSync(pki.caFile, 'utf8'), cert: readFileSync(pki.clientCertFile, 'utf8'), key: readFileSync(pki.clientKeyFile, 'utf8') }) } : null,
    );
  }

  /** Starts the management API server and adds options.clusters workload clusters. */
  static async start(options: FleetOptions): Promise<FakeFleet> {
    const api = await FakeKubeApiServer.start({ clusterApi: true });
    const fleet = new FakeFleet(api, options);
    const namespaces = options.namespaces ?? ['default'];
    for (let i = 0; i < (options.clusters ?? 0); i++) {
      const namespace = namespaces[i % namespaces.length] ?? 'default';
      fleet.addCluster(namespace, `cluster-${String(i + 1).padStart(3, '0')}`, options.labels ? { labels: options.labels(i) } : {});
    }
    return fleet;
  }

  /** Every cluster of the fleet, in the order they were added. */
  get clusters(): FleetCluster[] {
    return [...this.#clusters.values()];
  }

  /** The cluster of that name, or null. */
  cluster(namespace: string, name: string): FleetCluster | null {
    return this.#clusters.get(`${namespace}/${name}`) ?? null;
  }

  /** Adds a workload cluster: its API server, nodes and etcd pods, its Cluster and its two Secrets (replacing one of the same name). */
  addCluster(namespace: string, name: string, options: AddClusterOptions = {}): FleetCluster {
    const index = options.backend ?? this.#turn++ % this.#backends.length;
    const backend = this.#backends[index];
    if (!backend) throw new Error(`FakeFleet: no backend ${index}`);
    const workload = this.api.addWorkload(namespace, name, { auth: this.#auth });
    const etcdCa = quickCa(`etcd-ca ${namespace}/${name}`);
    const tlsFailures: string[] = [];
    const relay = this.#relay(etcdCa, backend, this.#upstreams[index] ?? null, tlsFailures);
    const createdAt = new Date(Date.now() - 3600_000);
    for (const member of backend.members) {
      const url = new URL(member.clientUrl);
      const node = controlPlaneNode(member.name, { createdAt, internalIP: url.hostname });
      // The annotations Cluster API's machine controller puts on the nodes it manages.
      node.metadata.annotations = {
        ...node.metadata.annotations,
        'cluster.x-k8s.io/cluster-name': name,
        'cluster.x-k8s.io/cluster-namespace': namespace,
        'cluster.x-k8s.io/machine': `${name}-control-plane-${member.name}`,
        'cluster.x-k8s.io/owner-kind': 'KubeadmControlPlane',
        'cluster.x-k8s.io/owner-name': `${name}-control-plane`,
      };
      workload.upsertNode(node);
      workload.upsertPod(etcdPod(node, { createdAt, advertiseClientUrl: member.clientUrl, backend: { host: url.hostname, port: Number(url.port), tls: relay } }));
    }
    const cluster: FleetCluster = { namespace, name, workload, etcdCa, backend, tlsFailures };
    this.#clusters.set(`${namespace}/${name}`, cluster);
    this.api.upsertCapiCluster(
      capiCluster(namespace, name, {
        controlPlaneEndpoint: { host: '127.0.0.1', port: this.api.port },
        ...(options.phase ? { phase: options.phase } : {}),
        ...(options.controlPlaneReady === undefined ? {} : { controlPlaneReady: options.controlPlaneReady }),
        ...(options.paused ? { paused: true } : {}),
        ...(options.labels ? { labels: options.labels } : {}),
        ...(options.topology ? { topology: options.topology } : {}),
      }),
    );
    this.api.upsertSecret(capiSecret(namespace, name, 'kubeconfig', { value: workload.kubeconfig() }));
    this.api.upsertSecret(capiSecret(namespace, name, 'etcd', { 'tls.crt': etcdCa.cert, 'tls.key': etcdCa.key }));
    return cluster;
  }

  /**
   * Removes a cluster as the end of its deletion does: its workload API server goes (its URL resets
   * connections, its tunnels are cut), then its Secrets, then the Cluster. True if it existed.
   */
  removeCluster(namespace: string, name: string): boolean {
    const existed = this.#clusters.delete(`${namespace}/${name}`);
    this.api.removeWorkload(namespace, name);
    this.api.removeSecret(namespace, `${name}-kubeconfig`);
    this.api.removeSecret(namespace, `${name}-etcd`);
    return this.api.removeCapiCluster(namespace, name) || existed;
  }

  /** Starts deleting a cluster (deletionTimestamp, phase Deleting); its API and Secrets stay until removeCluster. */
  startDeleting(namespace: string, name: string): void {
    this.api.startDeletingCapiCluster(namespace, name);
  }

  /** Sets or clears a cluster's spec.paused. */
  pause(namespace: string, name: string, paused = true): void {
    this.api.pauseCapiCluster(namespace, name, paused);
  }

  /** Moves a cluster's Cluster object to a phase (status and conditions); its API and Secrets are unchanged. */
  setPhase(namespace: string, name: string, phase: ClusterPhase, options: PhaseOptions = {}): void {
    // Once provisioned, the endpoint is where its workload API answers, as its kubeconfig Secret names it.
    this.api.setCapiClusterPhase(namespace, name, phase, { controlPlaneEndpoint: { host: '127.0.0.1', port: this.api.port }, ...options });
  }

  /** Stops the stand-in (every workload API server with it). */
  async close(): Promise<void> {
    await this.api.close();
  }

  #relay(etcdCa: QuickCa, backend: FleetBackend, upstream: Upstream | null, failures: string[]): TlsRelay {
    let serving: { cert: string; key: string; ca: string } | null = null;
    return {
      ticketKeys: randomBytes(48),
      upstreamSessions: new Map(),
      // Made on the first port-forward, as kubeadm names it (localhost, 127.0.0.1, the node): a fleet that
      // is never dialled costs no serving certificates.
      serving: () => {
        if (!serving) {
          const leaf = quickLeaf(etcdCa, { commonName: 'etcd', server: true, client: true, dnsNames: ['localhost', ...backend.members.map((m) => m.name)], ips: ['127.0.0.1'] });
          serving = { cert: leaf.cert, key: leaf.key, ca: etcdCa.cert };
        }
        return serving;
      },
      upstream,
      onHandshakeFailure: (reason) => failures.push(reason),
    };
  }
}
