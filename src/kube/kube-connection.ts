import { readFileSync } from 'node:fs';
import { CoreV1Api, CustomObjectsApi, KubeConfig, Observable, type RequestContext, type ResponseContext, type V1Node, type V1Pod } from '@kubernetes/client-node';
import type { InClusterAccess } from '../config/config.ts';
import type { NodeFacts, PodFacts } from '../probe/observations.ts';
import { apiDispatcher, tenantApiDispatcher } from './api-dispatcher.ts';
import { toCapiClusterFacts, type CapiClusterFacts } from './capi-cluster-facts.ts';
import { isMirrorPod, nodeAddresses, toNodeFacts, toPodFacts } from './convert.ts';
import type { DialGuard } from './dial-guard.ts';
import { describeKubeFailure, KubeError } from './kube-error.ts';
import { parseKubeconfigYaml } from './kubeconfig-yaml.ts';
import { kubeconfigFromSecret } from './secret-kubeconfig.ts';

/** Clusters asked for per page of a Cluster list (client-go's pager asks for 500). */
export const LIST_PAGE_SIZE = 500;
/** Pages of a Cluster list at most (100,000 Clusters): a server that keeps answering `continue` cannot hold a listing for ever. */
export const LIST_MAX_PAGES = 200;

/**
 * How a kubeconfig is found: the operator's file, a YAML text read from a Secret (Cluster API's
 * `<cluster>-kubeconfig`, written by whoever may write Secrets there), or the pod's service account.
 */
export type KubeconfigSource =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'secret'; readonly text: string; readonly label: string }
  | { readonly kind: 'in-cluster'; readonly access: InClusterAccess };

/**
 * Loads a KubeConfig, turning any problem into a KubeError that names where the kubeconfig came from
 * and never quotes its content. The operator's file keeps every client-node feature (exec plugins,
 * file paths): it is configuration, like the command line. A Secret's kubeconfig is checked field by
 * field first (secret-kubeconfig.ts): nothing in it is run or read.
 */
export function loadKubeConfig(source: KubeconfigSource): KubeConfig {
  if (source.kind === 'secret') return withServer(kubeconfigFromSecret(source.text, source.label), source.label);
  const kc = new KubeConfig();
  if (source.kind === 'in-cluster') {
    // As client-node's loadFromCluster, but with what the config resolver read: no library reads the environment.
    kc.loadFromOptions({
      clusters: [{ name: 'in-cluster', server: source.access.server, caFile: source.access.caFile, skipTLSVerify: false }],
      users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile: source.access.tokenFile } } }],
      contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster' }],
      currentContext: 'in-cluster',
    });
    return withServer(kc, 'in-cluster kubeconfig');
  }
  const label = `kubeconfig ${source.path}`;
  let text: string;
  try {
    text = readFileSync(source.path, 'utf8');
  } catch (error) {
    throw new KubeError('invalid-config', `${label}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  // Our parser first: its problems are reported by line and code; client-node's would quote the source.
  parseKubeconfigYaml(text, label);
  try {
    kc.loadFromString(text);
  } catch (error) {
    const mark = (error as { mark?: { line?: number } }).mark;
    const detail = mark?.line === undefined ? (error as Error).message : `not valid YAML at line ${mark.line + 1}`;
    throw new KubeError('invalid-config', `${label}: ${detail}`);
  }
  return withServer(kc, label);
}

function withServer(kc: KubeConfig, label: string): KubeConfig {
  if (!kc.getCurrentCluster()?.server) throw new KubeError('invalid-config', `${label}: no current cluster with a server URL`);
  return kc;
}

/** What asks the API server for an object's metadata only (kube-apiserver 1.15 and later). */
const METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

/** A node as listed: its facts for the verdict, and its addresses, which direct mode may dial. */
export interface ListedNode {
  readonly facts: NodeFacts;
  readonly addresses: readonly string[];
}

/**
 * The Kubernetes API calls the probe makes, each with its own deadline, answering in the project's own
 * types. Each request has its own undici dispatcher (api-dispatcher.ts: the kubeconfig's TLS context
 * made once, TLS sessions resumed), closed after the answer so that no connection lingers (an API poll
 * every few seconds does not need keep-alive).
 */
export class KubeConnection {
  readonly config: KubeConfig;
  /** Whether someone else wrote the kubeconfig (a Secret's): its requests go only to its server (tenantApiDispatcher). */
  readonly tenant: boolean;
  /** What a tenant's kubeconfig may not reach (ETCD_PROBE_DENY_CIDRS); null: no list. */
  readonly guard: DialGuard | null;
  readonly #api: CoreV1Api;
  #custom: CustomObjectsApi | null = null;

  constructor(config: KubeConfig, options: { readonly tenant?: boolean; readonly guard?: DialGuard | null } = {}) {
    this.config = config;
    this.tenant = options.tenant ?? false;
    this.guard = options.guard ?? null;
    this.#api = config.makeApiClient(CoreV1Api);
  }

  /** The API server's URL (never credentials), for reports. */
  get server(): string {
    return this.config.getCurrentCluster()?.server ?? 'unknown';
  }

  /** Lists nodes matching a label selector, each with its own IP addresses. */
  async listNodes(labelSelector: string, timeoutMs: number): Promise<ListedNode[]> {
    const list = await this.#call(`list nodes (${labelSelector})`, timeoutMs, (o) => this.#api.listNode({ labelSelector }, o));
    return list.items.map((n: V1Node) => ({ facts: toNodeFacts(n), addresses: nodeAddresses(n) }));
  }

  /**
   * Lists the mirror pods of static pods in a namespace matching a label selector: a pod made through
   * the API with the same labels (by anyone who may create pods there) is not kubeadm's etcd.
   */
  async listStaticPods(namespace: string, labelSelector: string, timeoutMs: number): Promise<PodFacts[]> {
    const list = await this.#call(`list pods in ${namespace} (${labelSelector})`, timeoutMs, (o) =>
      this.#api.listNamespacedPod({ namespace, labelSelector }, o),
    );
    return list.items.filter((p: V1Pod) => isMirrorPod(p)).map((p: V1Pod) => toPodFacts(p));
  }

  /**
   * A Secret's resourceVersion, read as metadata only (`PartialObjectMetadata`, RBAC `get` as for the
   * Secret): whether it changed, without its data crossing the wire. An API server that ignores the
   * request and sends the whole Secret still gets only its version read.
   */
  async readSecretVersion(namespace: string, name: string, timeoutMs: number): Promise<string> {
    const secret = await this.#call(`read secret ${namespace}/${name} (metadata)`, timeoutMs, (o) => this.#api.readNamespacedSecret({ namespace, name }, o), METADATA_ONLY);
    return secret.metadata?.resourceVersion ?? '';
  }

  /** Reads a Secret's data, decoded. */
  async readSecret(namespace: string, name: string, timeoutMs: number): Promise<ReadonlyMap<string, Buffer>> {
    const secret = await this.#call(`read secret ${namespace}/${name}`, timeoutMs, (o) => this.#api.readNamespacedSecret({ namespace, name }, o));
    return new Map(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
  }

  /**
   * Lists Cluster API Clusters (cluster.x-k8s.io/v1beta1) in a namespace, or in all of them (null),
   * matching a label selector (null: all). Objects whose name is not a Kubernetes name are left out.
   */
  async listCapiClusters(namespace: string | null, labelSelector: string | null, timeoutMs: number): Promise<CapiClusterFacts[]> {
    this.#custom ??= this.config.makeApiClient(CustomObjectsApi);
    const custom = this.#custom;
    const where = namespace ? `in ${namespace}` : 'in every namespace';
    const what = `list clusters.cluster.x-k8s.io ${where}`;
    const page = async (token: string | null): Promise<{ items: unknown[]; next: string | null }> => {
      const base = { group: 'cluster.x-k8s.io', version: 'v1beta1', plural: 'clusters', limit: LIST_PAGE_SIZE, ...(labelSelector ? { labelSelector } : {}), ...(token ? { _continue: token } : {}) };
      const list: unknown = await this.#call(what, timeoutMs, (o) => (namespace ? custom.listNamespacedCustomObject({ ...base, namespace }, o) : custom.listClusterCustomObject(base, o)));
      const { items, metadata } = list as { items?: unknown; metadata?: { continue?: unknown } };
      if (!Array.isArray(items)) throw new KubeError('error', `${what}: the answer has no items`);
      const next = typeof metadata?.continue === 'string' && metadata.continue !== '' ? metadata.continue : null;
      return { items, next };
    };
    // Paginated (limit/continue) so that no answer is unbounded; an expired continue token (410 Gone)
    // restarts the list once, as client-go's pager falls back to a full list.
    for (let attempt = 0; ; attempt++) {
      const facts: CapiClusterFacts[] = [];
      try {
        let token: string | null = null;
        for (let pages = 0; ; pages++) {
          if (pages >= LIST_MAX_PAGES) throw new KubeError('error', `${what}: more than ${LIST_MAX_PAGES} pages of ${LIST_PAGE_SIZE}`);
          const { items, next } = await page(token);
          for (const item of items) {
            const c = toCapiClusterFacts(item);
            if (c) facts.push(c);
          }
          if (next === null) return facts;
          token = next;
        }
      } catch (error) {
        if (attempt === 0 && error instanceof KubeError && error.status === 410) continue;
        throw error;
      }
    }
  }

  /** Reads one Cluster API Cluster (RBAC `get` on that Cluster); null when its name is not what Kubernetes allows. */
  async readCapiCluster(namespace: string, name: string, timeoutMs: number): Promise<CapiClusterFacts | null> {
    this.#custom ??= this.config.makeApiClient(CustomObjectsApi);
    const custom = this.#custom;
    const object: unknown = await this.#call(`read clusters.cluster.x-k8s.io ${namespace}/${name}`, timeoutMs, (o) =>
      custom.getNamespacedCustomObject({ group: 'cluster.x-k8s.io', version: 'v1beta1', plural: 'clusters', namespace, name }, o),
    );
    return toCapiClusterFacts(object);
  }

  async #call<T>(what: string, timeoutMs: number, run: (options: object) => Promise<T>, accept?: string): Promise<T> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    const dispatchers: { close(): Promise<void> }[] = [];
    const prepare = async (context: RequestContext) => {
      context.setSignal(abort.signal);
      if (accept) context.setHeaderParam('Accept', accept);
      const own = context.getDispatcher() as unknown as { close(): Promise<void> } | undefined;
      if (own) dispatchers.push(own);
      const shared = this.tenant ? await tenantApiDispatcher(this.config, this.guard) : await apiDispatcher(this.config);
      if (shared) {
        dispatchers.push(shared);
        context.setDispatcher(shared as unknown as Parameters<RequestContext['setDispatcher']>[0]);
      }
      return context;
    };
    const middleware = {
      pre: (context: RequestContext) => new Observable(prepare(context)),
      post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
    };
    try {
      return await run({ middleware: [middleware], middlewareMergeStrategy: 'append' });
    } catch (error) {
      throw describeKubeFailure(error, what, this.server, abort.signal.aborted ? timeoutMs : null);
    } finally {
      clearTimeout(timer);
      for (const d of dispatchers) void d.close().catch(() => {});
    }
  }
}
