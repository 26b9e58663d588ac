import { boundNodes, type NodeBounds } from './bound-nodes.ts';
import { Etcd3MemberClient } from '../etcd/etcd3-member-client.ts';
import type { ListedNode } from '../kube/kube-connection.ts';
import { KubeError, kubeProbeError } from '../kube/kube-error.ts';
import type { MemberClient } from '../probe/member-client.ts';
import type { KubeFacts, ListedMember, NodeFacts, PodFacts, Transport } from '../probe/observations.ts';
import type { ProbeTarget } from '../probe/probe-target.ts';
import type { ProbeError } from '../probe/outcome.ts';
import { directEndpoint } from './direct-endpoint.ts';
import type { DiscoveredSource } from './discovered-source.ts';
import { RefusedMemberClient } from './refused-member-client.ts';
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
  /** Control-plane nodes probed at most (ETCD_PROBE_MAX_MEMBERS); MAX_MEMBERS when unset. */
  readonly maxMembers?: number;
}

/** How one target is reached; kept per target key, since ProbeTarget carries no transport details. */
interface Plan {
  readonly node: string;
  readonly pod: string;
  readonly endpoint: string;
  readonly credentials: WorkloadCredentials;
  /** Why this endpoint is not dialled (direct mode, an annotation that names no address of the node). */
  readonly refused: ProbeError | null;
}

interface Discovery {
  readonly bounds: NodeBounds;
  readonly nodes: readonly NodeFacts[];
  readonly pods: readonly PodFacts[];
  readonly targets: readonly ProbeTarget[];
}

function mergeNodes(lists: readonly (readonly ListedNode[])[]): ListedNode[] {
  const byName = new Map<string, ListedNode>();
  for (const node of lists.flat()) if (!byName.has(node.facts.name)) byName.set(node.facts.name, node);
  return [...byName.values()].sort((a, b) => a.facts.name.localeCompare(b.facts.name));
}

/**
 * Members found through a workload cluster's API: its control-plane nodes and kubeadm's etcd static
 * pods, reached through the API server's port-forward or straight at the node. Discovery is refreshed
 * once per round, in parallel with probing the members it knew; when it fails, the last known members
 * are still probed and the failure is reported once (as KUBE_API_UNREACHABLE or KUBE_API_REFUSED).
 */
export class KubeSource implements DiscoveredSource {
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
      return { transport, cluster: access.cluster, nodes: discovery.nodes, pods: discovery.pods, fresh: true, apiError: null, nodeBounds: discovery.bounds };
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
    if (plan.refused) return new RefusedMemberClient(plan.refused);
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
      connection.listStaticPods(ETCD_NAMESPACE, ETCD_POD_SELECTOR, timeoutMs),
      ...selectors.map((s) => connection.listNodes(s, timeoutMs)),
    ]);
    // A tenant's API may list any number of nodes with any names: only valid names, at most MAX_MEMBERS.
    const { kept: listed, bounds } = boundNodes(mergeNodes(nodeLists), (n) => n.facts.name, this.#options.maxMembers);
    const targets: ProbeTarget[] = [];
    this.#plans.clear();
    for (const { facts: node, addresses } of listed) {
      // kubeadm's etcd on a node is the mirror pod etcd-<node> bound to it; no other pod stands in for it.
      const pod = pods.find((p) => p.name === `etcd-${node.name}` && p.nodeName === node.name) ?? null;
      const plan = this.#plan(node, addresses, pod, credentials);
      if (!plan) continue;
      // The generation is part of the key: new credentials mean new clients, and the old ones are closed.
      const key = `${this.#options.transport}:${node.name}#${credentials.generation}`;
      this.#plans.set(key, plan);
      targets.push({ key, endpoint: plan.endpoint, origin: 'kubernetes', node: node.name });
    }
    return { nodes: listed.map((n) => n.facts), pods, targets, bounds };
  }

  #plan(node: NodeFacts, addresses: readonly string[], pod: PodFacts | null, credentials: WorkloadCredentials): Plan | null {
    const podName = `etcd-${node.name}`;
    if (this.#options.transport === 'port-forward') {
      // The API server forwards only to a pod it knows; a node without one is judged, not dialled.
      if (!pod) return null;
      return { node: node.name, pod: podName, endpoint: `port-forward://${ETCD_NAMESPACE}/${podName}:${ETCD_CLIENT_PORT}`, credentials, refused: null };
    }
    const direct = directEndpoint(node, addresses, pod, ETCD_CLIENT_PORT);
    return direct ? { node: node.name, pod: podName, endpoint: direct.endpoint, credentials, refused: direct.refused } : null;
  }
}
