import type { ClusterView, MemberView } from './cluster-view.ts';
import type { ErrorLayer } from './outcome.ts';
import { label, reason, type Reason } from './reason.ts';

/** Layers whose failures are echoes of the Kubernetes API being unusable, not facts about etcd. */
const KUBE_LAYERS: ReadonlySet<ErrorLayer> = new Set(['kube-api']);

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)}m` : `${Math.round(ms / 1000)}s`;
}

/** The Kubernetes API failure of the round, reported once: unhealthy through a port-forward, degraded when direct. */
function judgeKubeApi(view: ClusterView): Reason[] {
  const kube = view.kube;
  if (!kube?.apiError) return [];
  const code = kube.apiError.code === 'KUBE_API_REFUSED' || kube.apiError.code === 'KUBE_API_NOT_ALLOWED' ? kube.apiError.code : 'KUBE_API_UNREACHABLE';
  const stale = kube.nodes.length > 0 ? '; probing the last known members' : '';
  if (kube.transport === 'port-forward') {
    return [reason(code, `${kube.apiError.message} (every member is reached through it, so etcd's health is unknown${stale})`)];
  }
  return [reason(code, `${kube.apiError.message} (members are probed directly${stale}; nodes and pods could not be checked)`, { severity: 'degraded' })];
}

/** MEMBER_WITHOUT_NODE, NODE_WITHOUT_MEMBER (past the grace period) and ETCD_POD_NOT_READY, from fresh node and pod lists. */
function judgeNodes(view: ClusterView, nodeGraceMs: number, now: number): Reason[] {
  const kube = view.kube;
  // Stale lists prove nothing, and without any member list nodes cannot be matched to members.
  if (!kube?.fresh || view.membershipSource === 'none') return [];
  const reasons: Reason[] = [];
  const listed = view.members.filter((m) => m.listed && m.name !== '');
  for (const m of listed) {
    const about = { member: m, endpoint: m.endpoint };
    if (!m.node) {
      reasons.push(reason('MEMBER_WITHOUT_NODE', `${label(m)} is an etcd member, but no control-plane node is named ${m.name}`, about));
    } else if (!m.pod) {
      reasons.push(reason('ETCD_POD_NOT_READY', `node ${m.node.name} has no etcd pod (component=etcd in kube-system)`, about));
    } else if (!m.pod.ready) {
      reasons.push(reason('ETCD_POD_NOT_READY', `pod ${m.pod.namespace}/${m.pod.name} on node ${m.node.name} is not Ready (phase ${m.pod.phase})`, about));
    }
  }
  const memberNames = new Set(listed.map((m) => m.name));
  for (const node of kube.nodes) {
    if (memberNames.has(node.name)) continue;
    const age = now - node.createdAt;
    if (age < nodeGraceMs) continue;
    reasons.push(
      reason('NODE_WITHOUT_MEMBER', `control-plane node ${node.name} (created ${minutes(age)} ago) has no etcd member named after it`, {
        endpoint: view.endpoints.find((e) => e.node === node.name)?.endpoint ?? null,
      }),
    );
  }
  return reasons;
}

/** TOO_MANY_MEMBERS and INVALID_NODE_NAME: nodes the listing named that the bounds kept from being probed. */
function judgeNodeBounds(view: ClusterView): Reason[] {
  const bounds = view.kube?.nodeBounds;
  if (!bounds) return [];
  const reasons: Reason[] = [];
  if (bounds.leftOut > 0) reasons.push(reason('TOO_MANY_MEMBERS', `the API lists ${bounds.max + bounds.leftOut} control-plane nodes; the first ${bounds.max} by name are probed, ${bounds.leftOut} are not`));
  if (bounds.invalidNames > 0) reasons.push(reason('INVALID_NODE_NAME', `${bounds.invalidNames} listed control-plane node(s) have a name that is not a DNS subdomain; they are not probed`));
  return reasons;
}

/** The Kubernetes modes' findings about the API, nodes and pods; none in static mode. */
export function judgeKube(view: ClusterView, nodeGraceMs: number, now: number): Reason[] {
  return [...judgeKubeApi(view), ...judgeNodeBounds(view), ...judgeNodes(view, nodeGraceMs, now)];
}

/** Whether a failure at this layer only echoes a Kubernetes API that this round could not use. */
export function echoesKubeApi(view: ClusterView, layer: ErrorLayer | undefined): boolean {
  return view.kube?.apiError != null && layer !== undefined && KUBE_LAYERS.has(layer);
}

/** Whether the node and pod checks explain why a member could not be dialled (no node, no Ready etcd pod). */
export function kubeExplains(view: ClusterView, m: MemberView): boolean {
  const kube = view.kube;
  if (!kube?.fresh || view.membershipSource === 'none' || !m.listed || m.name === '') return false;
  return !m.node || !m.pod || !m.pod.ready;
}
