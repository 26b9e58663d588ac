import { CoreV1Api, KubeConfig, Observable, type RequestContext, type ResponseContext, type V1Node, type V1Pod } from '@kubernetes/client-node';
import type { InClusterAccess } from '../config/config.ts';
import type { NodeFacts, PodFacts } from '../probe/observations.ts';
import { toNodeFacts, toPodFacts } from './convert.ts';
import { describeKubeFailure, KubeError } from './kube-error.ts';

/** How a kubeconfig is found: a file, a YAML text (a Cluster API secret), or the pod's service account. */
export type KubeconfigSource =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'text'; readonly text: string; readonly label: string }
  | { readonly kind: 'in-cluster'; readonly access: InClusterAccess };

/** Loads a KubeConfig, turning any problem into a KubeError that names where the kubeconfig came from. */
export function loadKubeConfig(source: KubeconfigSource): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (source.kind === 'file') kc.loadFromFile(source.path);
    else if (source.kind === 'text') kc.loadFromString(source.text);
    // As client-node's loadFromCluster, but with what the config resolver read: no library reads the environment.
    else
      kc.loadFromOptions({
        clusters: [{ name: 'in-cluster', server: source.access.server, caFile: source.access.caFile, skipTLSVerify: false }],
        users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile: source.access.tokenFile } } }],
        contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster' }],
        currentContext: 'in-cluster',
      });
  } catch (error) {
    throw new KubeError('invalid-config', `${labelOf(source)}: ${(error as Error).message}`);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new KubeError('invalid-config', `${labelOf(source)}: no current cluster with a server URL`);
  return kc;
}

function labelOf(source: KubeconfigSource): string {
  if (source.kind === 'file') return `kubeconfig ${source.path}`;
  if (source.kind === 'text') return source.label;
  return 'in-cluster kubeconfig';
}

/**
 * The Kubernetes API calls the probe makes, each with its own deadline, answering in the project's own
 * types. client-node builds a fresh undici dispatcher per request; it is closed after the answer so
 * that no connection lingers (an API poll every few seconds does not need keep-alive).
 */
export class KubeConnection {
  readonly config: KubeConfig;
  readonly #api: CoreV1Api;

  constructor(config: KubeConfig) {
    this.config = config;
    this.#api = config.makeApiClient(CoreV1Api);
  }

  /** The API server's URL (never credentials), for reports. */
  get server(): string {
    return this.config.getCurrentCluster()?.server ?? 'unknown';
  }

  /** Lists nodes matching a label selector. */
  async listNodes(labelSelector: string, timeoutMs: number): Promise<NodeFacts[]> {
    const list = await this.#call(`list nodes (${labelSelector})`, timeoutMs, (o) => this.#api.listNode({ labelSelector }, o));
    return list.items.map((n: V1Node) => toNodeFacts(n));
  }

  /** Lists the pods of a namespace matching a label selector. */
  async listPods(namespace: string, labelSelector: string, timeoutMs: number): Promise<PodFacts[]> {
    const list = await this.#call(`list pods in ${namespace} (${labelSelector})`, timeoutMs, (o) =>
      this.#api.listNamespacedPod({ namespace, labelSelector }, o),
    );
    return list.items.map((p: V1Pod) => toPodFacts(p));
  }

  /** Reads a Secret's data, decoded. */
  async readSecret(namespace: string, name: string, timeoutMs: number): Promise<ReadonlyMap<string, Buffer>> {
    const secret = await this.#call(`read secret ${namespace}/${name}`, timeoutMs, (o) => this.#api.readNamespacedSecret({ namespace, name }, o));
    return new Map(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
  }

  async #call<T>(what: string, timeoutMs: number, run: (options: object) => Promise<T>): Promise<T> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    let dispatcher: { close(): Promise<void> } | undefined;
    const middleware = {
      pre: (context: RequestContext) => {
        context.setSignal(abort.signal);
        dispatcher = context.getDispatcher() as unknown as typeof dispatcher;
        return new Observable(Promise.resolve(context));
      },
      post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
    };
    try {
      return await run({ middleware: [middleware], middlewareMergeStrategy: 'append' });
    } catch (error) {
      throw describeKubeFailure(error, what, this.server, abort.signal.aborted ? timeoutMs : null);
    } finally {
      clearTimeout(timer);
      void dispatcher?.close().catch(() => {});
    }
  }
}
