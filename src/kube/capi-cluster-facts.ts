import type { ApiEndpoint } from '../config/config.ts';
import { toApiEndpoint } from './api-endpoint.ts';

/** A Cluster API `Cluster` as fleet mode needs it: which one, and whether to probe it now. */
export interface CapiClusterFacts {
  readonly namespace: string;
  readonly name: string;
  /** spec.paused, or the `cluster.x-k8s.io/paused` annotation: an operator is working on it. */
  readonly paused: boolean;
  /** metadata.deletionTimestamp is set. */
  readonly deleting: boolean;
  /** status.phase (Pending, Provisioning, Provisioned, Deleting, Failed), or Unknown. */
  readonly phase: string;
  /** status.controlPlaneReady (v1beta1) or status.initialization.controlPlaneInitialized (v1beta2). */
  readonly controlPlaneReady: boolean;
  /** spec.controlPlaneEndpoint, which the kubeconfig Secret's server must name; null: none, or not a valid host and port. */
  readonly controlPlaneEndpoint: ApiEndpoint | null;
  /** metadata.creationTimestamp in epoch ms, when it parses: the fleet bounds keep the oldest Clusters. */
  readonly createdAt?: number;
  /** metadata.uid, when it looks like one: the shard key, which the Cluster's creator cannot choose. */
  readonly uid?: string;
}

const PHASES = ['Pending', 'Provisioning', 'Provisioned', 'Deleting', 'Failed'];
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const UID = /^[0-9a-f-]{1,64}$/;
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * A listed Cluster object as facts, or null when its name or namespace is not what Kubernetes allows
 * (an API server, or a stand-in, may send anything: nothing unvalidated becomes a route or a label).
 */
export function toCapiClusterFacts(object: unknown): CapiClusterFacts | null {
  const item = record(object);
  const metadata = record(item.metadata);
  const spec = record(item.spec);
  const status = record(item.status);
  const { namespace, name } = metadata;
  if (typeof namespace !== 'string' || typeof name !== 'string' || !NAMESPACE.test(namespace) || !NAME.test(name)) return null;
  const annotations = record(metadata.annotations);
  const created = typeof metadata.creationTimestamp === 'string' ? Date.parse(metadata.creationTimestamp) : Number.NaN;
  const phase = typeof status.phase === 'string' && PHASES.includes(status.phase) ? status.phase : 'Unknown';
  return {
    namespace,
    name,
    paused: spec.paused === true || 'cluster.x-k8s.io/paused' in annotations,
    deleting: typeof metadata.deletionTimestamp === 'string' && metadata.deletionTimestamp !== '',
    phase,
    controlPlaneReady: status.controlPlaneReady === true || record(status.initialization).controlPlaneInitialized === true,
    controlPlaneEndpoint: toApiEndpoint(spec.controlPlaneEndpoint),
    ...(Number.isFinite(created) ? { createdAt: created } : {}),
    ...(typeof metadata.uid === 'string' && UID.test(metadata.uid) ? { uid: metadata.uid } : {}),
  };
}
