import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { NodeFacts, PodFacts } from '../probe/observations.ts';

/** The kubelet marks the API's copy of a static pod (a mirror pod) with this annotation. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** kubeadm records etcd's client URL on its static pod under this annotation. */
export const ADVERTISE_CLIENT_URLS_ANNOTATION = 'kubeadm.kubernetes.io/etcd.advertise-client-urls';

function conditionTrue(conditions: readonly { type: string; status: string }[] | undefined, type: string): boolean {
  return conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

function epochOf(time: Date | string | undefined): number {
  if (time === undefined) return 0;
  const ms = time instanceof Date ? time.getTime() : Date.parse(time);
  return Number.isFinite(ms) ? ms : 0;
}

/** A V1Node as NodeFacts. */
export function toNodeFacts(node: V1Node): NodeFacts {
  return {
    name: node.metadata?.name ?? '',
    ready: conditionTrue(node.status?.conditions, 'Ready'),
    internalIP: node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? null,
    createdAt: epochOf(node.metadata?.creationTimestamp),
  };
}

/** A node's own IP addresses (InternalIP and ExternalIP), as its kubelet reports them. */
export function nodeAddresses(node: V1Node): string[] {
  return (node.status?.addresses ?? []).filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP').map((a) => a.address);
}

/** Whether a pod is the mirror of a static pod (kubeadm's etcd is one), as opposed to one made through the API. */
export function isMirrorPod(pod: V1Pod): boolean {
  return pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
}

/** A V1Pod as PodFacts. */
export function toPodFacts(pod: V1Pod): PodFacts {
  const urls = pod.metadata?.annotations?.[ADVERTISE_CLIENT_URLS_ANNOTATION];
  return {
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? '',
    nodeName: pod.spec?.nodeName ?? null,
    ready: conditionTrue(pod.status?.conditions, 'Ready'),
    phase: pod.status?.phase ?? 'Unknown',
    advertiseClientUrl: urls ? (urls.split(',')[0]?.trim() ?? null) : null,
  };
}
