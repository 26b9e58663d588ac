import { probeError, type ProbeError } from '../probe/outcome.ts';
import { DENIED_CODE } from './dial-guard.ts';
import { sanitisePeerText, statusMessageOf } from './peer-text.ts';

/** The port-forward a failure is about: the pod's port, its node, and the API server carrying it. */
export interface PortForwardTarget {
  readonly server: string;
  readonly namespace: string;
  readonly pod: string;
  readonly node: string;
  readonly port: number;
}

/** The most bytes of a peer's error text read (an upgrade refusal's Status object, a kubelet's message). */
export const MAX_ERROR_BODY = 4096;

/** The API server answered the upgrade with HTTP `status` and `body` (a Status object, usually). */
export function refusalError(target: PortForwardTarget, status: number, body: string): ProbeError {
  const message = statusMessageOf(body, status);
  const { namespace, pod, node } = target;
  if (status === 401 || status === 403) {
    return probeError(
      'PORT_FORWARD_FAILED',
      `the API server refused the port-forward to ${namespace}/${pod} (HTTP ${status}: ${message}); the credentials need "create" on pods/portforward in ${namespace}`,
      'kube-api',
    );
  }
  return probeError(
    'PORT_FORWARD_FAILED',
    `the API server could not open the port-forward to ${namespace}/${pod} on node ${node} (HTTP ${status}: ${message}); is the node's kubelet running and reachable from the API server?`,
  );
}

/** The WebSocket to the API server could not be opened (denied by the dial guard, timed out, TLS, network). */
export function connectError(target: PortForwardTarget, timeoutMs: number, error: unknown): ProbeError {
  const text = sanitisePeerText(error instanceof Error ? error.message : String((error as { message?: unknown })?.message ?? error));
  const code = (error as { code?: string } | null)?.code ?? /E[A-Z]+/.exec(text)?.[0] ?? '';
  const { server } = target;
  if (code === DENIED_CODE) return probeError('KUBE_API_NOT_ALLOWED', `the port-forward to the API server ${server} was not opened: ${text}`);
  if (/Opening handshake has timed out/.test(text)) {
    return probeError('KUBE_API_UNREACHABLE', `no answer from the API server ${server} to the port-forward within ${timeoutMs}ms`);
  }
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|certificate/i.test(`${code} ${text}`)) {
    return probeError('KUBE_API_UNREACHABLE', `TLS with the API server ${server} failed: ${text}`);
  }
  return probeError('KUBE_API_UNREACHABLE', `cannot reach the API server ${server} for the port-forward: ${text}`);
}

/** The kubelet wrote `raw` on the error channel: the pod's port refused, or the kubelet failed the forward. */
export function kubeletError(target: PortForwardTarget, raw: string): ProbeError {
  const { pod, node, port } = target;
  const text = sanitisePeerText(raw);
  if (/connection refused/.test(raw)) {
    return probeError('CONNECTION_REFUSED', `through the port-forward, nothing listens on ${pod}:${port} on node ${node} (is etcd running?): ${text}`);
  }
  return probeError('PORT_FORWARD_FAILED', `the kubelet on node ${node} failed the port-forward to ${pod}:${port}: ${text}`);
}

/** The connection to the API server carrying the port-forward dropped without a close frame. */
export function droppedError(target: PortForwardTarget): ProbeError {
  return probeError('KUBE_API_UNREACHABLE', `the connection to the API server ${target.server} carrying the port-forward to ${target.namespace}/${target.pod} dropped`);
}
