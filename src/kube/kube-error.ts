import { ApiException } from '@kubernetes/client-node';
import type { ProbeError } from '../probe/outcome.ts';
import { DENIED_CODE } from './dial-guard.ts';
import { sanitisePeerText, statusMessageOf } from './peer-text.ts';

/** What went wrong talking to the Kubernetes API, in the terms an operator acts on. */
export type KubeErrorKind =
  | 'invalid-config'
  | 'invalid-secret'
  | 'unreachable'
  | 'timeout'
  | 'tls'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'not-allowed'
  | 'error';

/** A failed Kubernetes API call (or kubeconfig), its kind, and a message that names the call and the server. */
export class KubeError extends Error {
  readonly kind: KubeErrorKind;
  readonly status: number | null;

  constructor(kind: KubeErrorKind, message: string, status: number | null = null) {
    super(message);
    this.name = 'KubeError';
    this.kind = kind;
    this.status = status;
  }
}

function causeCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function causeMessage(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    message = current.message;
    current = current.cause;
  }
  // A TLS failure's text can quote the peer's certificate (its names): bounded like any peer text.
  return sanitisePeerText(message);
}

/** Turns whatever client-node threw into a KubeError: HTTP status, network failure, TLS, or our own deadline. */
export function describeKubeFailure(error: unknown, what: string, server: string, timedOutAfterMs: number | null): KubeError {
  if (error instanceof KubeError) return error;
  if (timedOutAfterMs !== null) {
    return new KubeError('timeout', `${what}: no answer from the API server ${server} within ${timedOutAfterMs}ms`);
  }
  if (error instanceof ApiException) {
    // Only a Status message, capped and sanitised: the body is the peer's (a tenant's server in fleet mode).
    const detail = statusMessageOf(error.body, error.code);
    const kind: KubeErrorKind =
      error.code === 401 ? 'unauthorized' : error.code === 403 ? 'forbidden' : error.code === 404 ? 'not-found' : 'error';
    return new KubeError(kind, `${what}: ${detail} (HTTP ${error.code} from ${server})`, error.code);
  }
  const code = causeCode(error);
  const detail = causeMessage(error);
  if (code === 'ERR_ETCD_PROBE_NOT_ALLOWED') {
    return new KubeError('not-allowed', `${what}: the API server ${server} redirected the request to another address, which is not followed (only the kubeconfig's server is connected to)`);
  }
  if (code === DENIED_CODE) return new KubeError('not-allowed', `${what}: the API server ${server}: ${detail}`);
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
    return new KubeError('error', `${what}: the answer of the API server ${server} is larger than the service reads from it`);
  }
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/.test(code)) {
    return new KubeError('tls', `${what}: TLS with the API server ${server} failed: ${detail}`);
  }
  if (code && /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|UND_ERR/.test(code)) {
    return new KubeError('unreachable', `${what}: cannot reach the API server ${server}: ${detail}`);
  }
  return new KubeError('error', `${what}: ${detail}`);
}

/** The ProbeError a Kubernetes API failure becomes: unreachable (network, deadline, TLS), refused (answered no), or not allowed (never dialled). */
export function kubeProbeError(error: KubeError): ProbeError {
  if (error.kind === 'not-allowed') return { code: 'KUBE_API_NOT_ALLOWED', message: error.message, layer: 'kube-api' };
  const unreachable = error.kind === 'unreachable' || error.kind === 'timeout' || error.kind === 'tls';
  return { code: unreachable ? 'KUBE_API_UNREACHABLE' : 'KUBE_API_REFUSED', message: error.message, layer: 'kube-api' };
}
