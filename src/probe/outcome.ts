/**
 * Where on the path to a member a failure happened: listing or authenticating to the Kubernetes API, the
 * API server's or kubelet's port-forward tunnel, the TLS handshake with etcd, or etcd's RPC itself.
 */
export type ErrorLayer = 'kube-api' | 'port-forward' | 'tls' | 'etcd';

/** Why one call to one member failed, in words an operator can act on, and at which layer. */
export interface ProbeError {
  readonly code: ProbeErrorCode;
  readonly message: string;
  readonly layer: ErrorLayer;
}

/** The kinds of failure the probe tells apart (a list, so that openapi.yaml can be held to it). */
export const PROBE_ERROR_CODES = [
  'CONNECTION_REFUSED',
  'DNS_FAILURE',
  'TIMEOUT',
  'TLS_UNTRUSTED_SERVER',
  'TLS_CERT_EXPIRED',
  'TLS_CERT_NOT_YET_VALID',
  'TLS_NAME_MISMATCH',
  'TLS_CLIENT_REJECTED',
  'TLS_HANDSHAKE',
  'UNAVAILABLE',
  'NO_LEADER',
  'LEADER_CHANGED',
  'TOO_MANY_REQUESTS',
  'LEARNER_READ_REJECTED',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'ETCD_ERROR',
  'WRONG_CLUSTER',
  'WRONG_MEMBER',
  'PORT_FORWARD_FAILED',
  'KUBE_API_UNREACHABLE',
  'KUBE_API_REFUSED',
  'KUBE_API_NOT_ALLOWED',
  'ENDPOINT_REFUSED',
] as const;

/** One kind of failure. */
export type ProbeErrorCode = (typeof PROBE_ERROR_CODES)[number];

/** The layer a code belongs to when nothing more specific is known. */
export function defaultLayer(code: ProbeErrorCode): ErrorLayer {
  if (code.startsWith('TLS_')) return 'tls';
  if (code === 'PORT_FORWARD_FAILED') return 'port-forward';
  if (code === 'KUBE_API_UNREACHABLE' || code === 'KUBE_API_REFUSED') return 'kube-api';
  return 'etcd';
}

/** A ProbeError, its layer defaulting to the code's own. */
export function probeError(code: ProbeErrorCode, message: string, layer: ErrorLayer = defaultLayer(code)): ProbeError {
  return { code, message, layer };
}

/** A call's result as data: its value or its error, and how long it took. Never a throw. */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T; readonly ms: number }
  | { readonly ok: false; readonly error: ProbeError; readonly ms: number };
