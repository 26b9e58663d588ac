import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PemPair } from '#lab/certs/pki.ts';
import type { ServedApi } from './api-handler.ts';
import { ADMIN, API_CA, makeApiServerPki, type ApiServerPki } from './api-pki.ts';
import { UserDirectory, type Rule } from './auth.ts';
import { ClusterState } from './cluster-state.ts';
import { apiHttpsServer } from './https-server.ts';
import { renderKubeconfig, writeInClusterLayout, type InClusterLayout, type KubeconfigOptions } from './kubeconfig.ts';
import { Listener } from './listener.ts';
import { quickCa, type QuickCa } from './quick-pki.ts';
import { requestRecord, type RequestRecord } from './request-log.ts';
import { servedResources, type ResourceType } from './resources.ts';
import { ApiRouter } from './router.ts';
import { TunnelBook } from './tunnel-book.ts';
import { WORKLOAD_CLIENT_CA, type WorkloadCluster, type WorkloadOptions } from './workload-cluster.ts';
import { WorkloadRegistry } from './workload-registry.ts';

// A STAND-IN for kube-apiserver (plus the kubelet's port-forward behind it), used because no real
// kube-apiserver can run in this environment. It speaks the real wire protocol to the real
// @kubernetes/client-node and to real kubectl (1.31 and 1.35, test/integration/fake-kube-kubectl.test.ts):
//   - HTTPS with its own CA; authentication by client certificate (CN = user) or bearer token, 401 Status
//     otherwise; per-user RBAC rules (403 Status worded as the RBAC authorizer words it).
//   - Discovery for any authenticated user: /version, /api and /apis as aggregated discovery (v2) or the
//     legacy documents, /api/v1, negotiated on Accept (discovery.ts).
//   - GET core/v1 nodes, pods, secrets: get (also as PartialObjectMetadata, metadata only) and list, labelSelector (=, ==, !=, exists, !key, in, notin)
//     and fieldSelector (spec.nodeName, metadata.name, ...), List kinds with metadata.resourceVersion and
//     items without kind/apiVersion, paged by limit/continue (rest.ts), NotFound/BadRequest/MethodNotAllowed Status objects; a meta.k8s.io
//     Table when Accept asks for one, as `kubectl get` does (tables.ts).
//   - pods/{name}/portforward upgrades, bridged to a TCP backend per pod (e.g. a real etcd member): a
//     WebSocket with v4.channel.k8s.io / v4.base64.channel.k8s.io (client-node: port prefix on each
//     channel's first frame, data channel 2i, error channel 2i+1), a WebSocket tunnelling SPDY
//     (SPDY/3.1+portforward.k8s.io, kubectl's default) or an HTTP upgrade to SPDY/3.1 (kubectl's fallback),
//     both with the kubelet's portforward.k8s.io streams (upgrade.ts, spdy-port-forward.ts); the kubelet's
//     dial error text on the error channel or stream.
//   - Watches of every served resource (watch.ts): JSON lines, initial ADDED events, 410 Expired.
//   - With `clusterApi`, a management cluster: Cluster API's clusters.cluster.x-k8s.io/v1beta1 in
//     discovery, get/list/watch, Tables with the CRD's printer columns (capi-clusters.ts builds them).
//   - Workload clusters of a fleet inside the same listener, each an API server of its own at
//     /workloads/<namespace>/<name> (workload-cluster.ts; fake-fleet.ts puts Cluster API on top), and a
//     STAND-IN TLS relay inside their port-forwards (tls-relay.ts).
//   - Fault injection: per-pod port-forward failures, stop/start on the same port, pause/resume (hung);
//     per workload cluster, reset or hang.
// It does NOT implement: writes (every non-GET is 405), watch bookmarks and Table watches, other resources
// or API groups (Cluster API's v1beta2 included), OpenAPI documents (/openapi/v2, /v3: kubectl's apply,
// explain and validation need them), protobuf or CBOR (it answers JSON, which clients accept), HTTP/2,
// exec/attach, impersonation, admission, SPDY flow control (neither kubectl's spdystream nor the kubelet
// use it), or resourceVersion semantics beyond a counter and a log of the last 1000 changes; secrets are
// served as given, with no encryption or redaction.

/** Options of FakeKubeApiServer.start. */
export interface FakeKubeApiServerOptions {
  /** Listen on this port (default: a free one). */
  readonly port?: number;
  /** Serve Cluster API's clusters.cluster.x-k8s.io (a management cluster, where its CRDs are installed). */
  readonly clusterApi?: boolean;
}

export type { KubeconfigOptions } from './kubeconfig.ts';
export type { RequestRecord } from './request-log.ts';
export type { WorkloadOptions } from './workload-cluster.ts';

/** A running stand-in kube-apiserver on 127.0.0.1. */
export class FakeKubeApiServer extends ClusterState implements ServedApi {
  /** PEM of the CA that signed the server and client certificates (the kubeconfig's certificate-authority-data). */
  readonly caPem: string;
  /** The admin client certificate (CN kubernetes-admin, full access). */
  readonly clientCert: PemPair;
  /** The admin bearer token (full access). */
  readonly token: string;
  /** Every request so far, oldest first (workload clusters' too, by their full path); clear it with `requests.length = 0`. */
  readonly requests: RequestRecord[] = [];
  /** The users of this (the management) API server. */
  readonly users = new UserDirectory({ unknown: 'no-rights', issuer: API_CA });
  /** The resource types it serves. */
  readonly resources: readonly ResourceType[];
  readonly #tlsSessions = { full: 0, resumed: 0 };
  readonly #listener: Listener;
  readonly #book: TunnelBook;
  readonly #workloadCa: QuickCa;
  readonly #workloads: WorkloadRegistry;
  readonly #router: ApiRouter;

  private constructor({ ca, server, client }: ApiServerPki, port: number, clusterApi: boolean) {
    super();
    this.caPem = ca.cert;
    this.clientCert = client;
    this.resources = servedResources(clusterApi);
    this.token = this.users.addToken('token-admin', null, randomBytes(24).toString('base64url'));
    this.users.addCertificateUser(ADMIN, null);
    this.#workloadCa = quickCa(WORKLOAD_CLIENT_CA);
    const https = apiHttpsServer(server, [ca.cert, this.#workloadCa.cert], this.#tlsSessions);
    https.on('request', (req, res) => this.#listener.whenAwake(() => this.#router.request(req, res)));
    https.on('upgrade', (req, socket, head) => {
      socket.on('error', () => {});
      this.#listener.whenAwake(() => this.#router.upgrade(req, socket, head));
    });
    this.#listener = new Listener(https, port);
    const log = (...record: Parameters<typeof requestRecord>) => void this.requests.push(requestRecord(...record));
    this.#book = new TunnelBook(() => `127.0.0.1:${this.#listener.port}`, log);
    this.#workloads = new WorkloadRegistry(this.#book);
    this.#router = new ApiRouter(this, this.#book.contextFor(), this.#workloads, log);
  }

  /** Makes a CA, server and client certificates, and listens on 127.0.0.1. */
  static async start(options: FakeKubeApiServerOptions = {}): Promise<FakeKubeApiServer> {
    const api = new FakeKubeApiServer(await makeApiServerPki(), options.port ?? 0, options.clusterApi ?? false);
    await api.start();
    return api;
  }

  /** https://127.0.0.1:<port> */
  get url(): string {
    return `https://127.0.0.1:${this.#listener.port}`;
  }

  /** The listening port (the same across stop/start). */
  get port(): number {
    return this.#listener.port;
  }

  /** Port-forward connections (WebSockets, SPDY sessions) currently open. */
  get openTunnels(): number {
    return this.#book.tunnels.size;
  }

  /** TCP connections from tunnels to pod backends currently open. */
  get openBackendSockets(): number {
    return this.#book.backends.size;
  }

  /** Client TCP connections to the API server currently open (keep-alive, upgraded and held ones too). */
  get openConnections(): number {
    return this.#listener.openConnections;
  }

  /** TLS handshakes since start: full ones, and those that resumed an earlier session (no certificate exchange). */
  get tlsSessions(): { readonly full: number; readonly resumed: number } {
    return { ...this.#tlsSessions };
  }

  /** Connections and requests that arrived during pause() and wait for resume(). */
  get heldConnections(): number {
    return this.#listener.heldConnections;
  }

  /** Port-forward connections accepted since start. */
  get tunnelsOpened(): number {
    return this.#book.opened;
  }

  /** Bytes closed tunnels carried to and from pod backends (a check that traffic really went through). */
  get tunnelBytes(): { toPods: number; fromPods: number } {
    return this.#book.bytes;
  }

  /** Open watches of this API server. */
  get openWatches(): number {
    return this.events.watchers;
  }

  /** Listens again (after stop) on the same port. */
  async start(): Promise<void> {
    await this.#listener.start();
  }

  /** The API server goes down: port closed, every connection, tunnel and backend socket destroyed. */
  async stop(): Promise<void> {
    await this.#book.cut();
    await this.#listener.stop();
  }

  /** The API server hangs: TCP connects, nothing answers; open tunnels stop moving bytes. */
  pause(): void {
    this.#listener.pause();
    this.#book.pause();
  }

  /** Ends pause(): held connections and requests are served. */
  resume(): void {
    this.#book.resume();
    this.#listener.resume();
  }

  /** Stops for good. */
  async close(): Promise<void> {
    await this.stop();
    this.#book.close();
  }

  /** Adds a user with a bearer token and RBAC rules (null = full access); returns the token. */
  addUser(name: string, rules: readonly Rule[] | null): string {
    return this.users.addToken(name, rules);
  }

  /** Revokes a token (requests with it get 401). */
  revokeToken(token: string): void {
    this.users.revokeToken(token);
  }

  /**
   * Adds a workload cluster's API server at <url>/workloads/<namespace>/<name> (workload-cluster.ts), with
   * no objects yet; replaces one of the same name.
   */
  addWorkload(namespace: string, name: string, options: WorkloadOptions = {}): WorkloadCluster {
    return this.#workloads.add({ namespace, name, baseUrl: this.url, apiCaPem: this.caPem, clientCa: this.#workloadCa, auth: options.auth ?? 'cert' });
  }

  /** The workload cluster of that name, or null. */
  workload(namespace: string, name: string): WorkloadCluster | null {
    return this.#workloads.get(namespace, name);
  }

  /** Removes a workload cluster: its URL resets connections from now on, and its open tunnels are cut. */
  removeWorkload(namespace: string, name: string): boolean {
    return this.#workloads.remove(namespace, name);
  }

  /** How many workload clusters are served. */
  get workloadCount(): number {
    return this.#workloads.size;
  }

  /** Kubeconfig YAML for this server, with the admin client certificate or a token. */
  kubeconfig(options: KubeconfigOptions): string {
    return renderKubeconfig({
      server: options.server ?? this.url,
      caPem: options.caPem ?? this.caPem,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.auth === 'cert' ? { cert: this.clientCert, userName: ADMIN } : { token: options.token ?? this.token }),
    });
  }

  /** Writes kubeconfig() to <dir>/kubeconfig (mode 0600) and returns the path. */
  async writeKubeconfig(dir: string, options: KubeconfigOptions): Promise<string> {
    const path = join(dir, 'kubeconfig');
    await writeFile(path, this.kubeconfig(options), { mode: 0o600 });
    return path;
  }

  /** Writes a pod's service-account mount under dir for KubeConfig.loadFromCluster(pathPrefix). */
  writeInCluster(dir: string, options: { token?: string; namespace?: string } = {}): Promise<InClusterLayout> {
    return writeInClusterLayout(dir, { host: '127.0.0.1', port: this.port, caPem: this.caPem, token: options.token ?? this.token, namespace: options.namespace ?? 'kube-system' });
  }
}
