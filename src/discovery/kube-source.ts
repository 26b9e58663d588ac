import { Etcd3MemberClient } from '../etcd/etcd3-member-client.ts';
import { KubeError, kubeProbeError } from '../kube/kube-error.ts';
import type { MemberClient } from '../probe/member-client.ts';
import type { KubeFacts, ListedMember, NodeFacts, PodFacts, Transport } from '../probe/observations.ts';
import type { ProbeTarget } from '../probe/probe-target.ts';
import type { MemberSource } from './member-source.ts';
import { TunnelledMemberClient } from './tunnelled-member-client.ts';
import type { WorkloadAccess, WorkloadCredentials } from './workload-access.ts';

/** kubeadm's etcd static pods live here, labelled component=etcd. */
export const ETCD_NAMESPACE = 'kube-system';
/** The label of kubeadm's etcd static pods. */
export const ETCD_POD_SELECTOR = 'component=etcd';
/** The default control-plane node selector... */
export const CONTROL_PLANE_SELECTOR = 'node-role.kubernetes.io/control-plane';
/** ...and the legacy one that older clusters still carry. */
export const LEGACY_CONTROL_PLANE_SELECTOR = 'node-role.kubernetes.io/master';
/** etcd's client port on kubeadm control-plane nodes. */
export const ETCD_CLIENT_PORT = 2379;

/** A Kubernetes mode's settings. */
export interface KubeSourceOptions {
  readonly mode: 'kubeconfig' | 'capi';
  readonly access: WorkloadAccess;
  readonly transport: Transport;
  readonly nodeSelector: string;
  readonly timeoutMs: number;
}

/** How one target is reached; kept per target key, since ProbeTarget carries no transport details. */
interface Plan {
  readonly node: string;
  readonly pod: string;
  readonly endpoint: string;
  readonly credentials: WorkloadCredentials;
}

interface Discovery {
  readonly nodes: readonly NodeFacts[];
  readonly pods: readonly PodFacts[];
  readonly targets: readonly ProbeTarget[];
}

function mergeNodes(lists: readonly (readonly NodeFacts[])[]): NodeFacts[] {
  const byName = new Map<string, NodeFacts>();
  for (const node of lists.flat()) if (!byName.has(node.name)) byName.set(node.name, node);
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Members found through a workload cluster's API: its control-plane nodes and kubeadm's etcd static
 * pods, reached through the API server's port-forward or straight at the node. Discovery is refreshed
 * once per round, in parallel with probing the members it knew; when it fails, the last known members
 * are still probed and the failure is reported once (as KUBE_API_UNREACHABLE or KUBE_API_REFUSED).
 */
export class KubeSource implements MemberSource {
  readonly mode: string;
  readonly #options: KubeSourceOptions;
  readonly #plans = new Map<string, Plan>();
  #known: Discovery | null = null;
  #credentials: WorkloadCredentials | null = null;

  constructor(options: KubeSourceOptions) {
    this.#options = options;
    this.mode = options.mode;
  }

  async refresh(): Promise<KubeFacts> {
    const { access, transport } = this.#options;
    try {
      const credentials = await access.resolve(this.#options.timeoutMs);
      this.#credentials = credentials;
      const discovery = await this.#discover(credentials);
      this.#known = discovery;
      return { transport, cluster: access.cluster, nodes: discovery.nodes, pods: discovery.pods, fresh: true, apiError: null };
    } catch (error) {
      if (!(error instanceof KubeError)) throw error;
      const known = this.#known;
      return { transport, cluster: access.cluster, nodes: known?.nodes ?? [], pods: known?.pods ?? [], fresh: false, apiError: kubeProbeError(error) };
    }
  }

  credentials() {
    return this.#credentials?.tls ?? null;
  }

  async targets(_listed: readonly ListedMember[]): Promise<readonly ProbeTarget[]> {
    return this.#known?.targets ?? [];
  }

  connect(target: ProbeTarget): MemberClient {
    const plan = this.#plans.get(target.key);
    if (!plan) throw new Error(`no plan for target ${target.key}`);
    const { timeoutMs } = this.#options;
    const { connection, tls } = plan.credentials;
    if (this.#options.transport === 'direct') return new Etcd3MemberClient({ endpoint: plan.endpoint, tls, timeoutMs });
    return new TunnelledMemberClient({
      connection,
      namespace: ETCD_NAMESPACE,
      pod: plan.pod,
      node: plan.node,
      port: ETCD_CLIENT_PORT,
      timeoutMs,
      endpoint: plan.endpoint,
      tls,
    });
  }

  async close(): Promise<void> {
    this.#plans.clear();
  }

  async #discover(credentials: WorkloadCredentials): Promise<Discovery> {
    const { connection } = credentials;
    const { nodeSelector, timeoutMs } = this.#options;
    const selectors = nodeSelector === CONTROL_PLANE_SELECTOR ? [CONTROL_PLANE_SELECTOR, LEGACY_CONTROL_PLANE_SELECTOR] : [nodeSelector];
    const [pods, ...nodeLists] = await Promise.all([
      connection.listPods(ETCD_NAMESPACE, ETCD_POD_SELECTOR, timeoutMs),
      ...selectors.map((s) => connection.listNodes(s, timeoutMs)),
    ]);
    const nodes = mergeNodes(nodeLists);
    const targets: ProbeTarget[] = [];
    this.#plans.clear();
    for (const node of nodes) {
      const pod = pods.find((p) => p.nodeName === node.name) ?? null;
      const plan = this.#plan(node, pod, credentials);
      if (!plan) continue;
      // The generation is part of the key: new credentials mean new clients, and the old ones are closed.
      const key = `${this.#options.transport}:${node.name}#${credentials.generation}`;
      this.#plans.set(key, plan);
      targets.push({ key, endpoint: plan.endpoint, origin: 'kubernetes', node: node.name });
    }
    return { nodes, pods, targets };
  }

  #plan(node: NodeFacts, pod: PodFacts | null, credentials: WorkloadCredentials): Plan | null {
    const podName = pod?.name ?? `etcd-${node.name}`;
    if (this.#options.transport === 'port-forward') {
      // The API server forwards only to a pod it knows; a node without one is judged, not dialled.
      if (!pod) return null;
      return { node: node.name, pod: podName, endpoint: `port-forward://${ETCD_NAMESPACE}/${podName}:${ETCD_CLIENT_PORT}`, credentials };
    }
    const scheme = credentials.tls.ca || credentials.tls.cert ? 'https' : 'http';
    const endpoint = pod?.advertiseClientUrl ?? (node.internalIP ? `${scheme}://${hostOf(node.internalIP)}:${ETCD_CLIENT_PORT}` : null);
    return endpoint ? { node: node.name, pod: podName, endpoint, credentials } : null;
  }
}

function hostOf(ip: string): string {
  return ip.includes(':') ? `[${ip}]` : ip;
}
