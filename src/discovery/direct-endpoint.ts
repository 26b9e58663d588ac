import { isIP } from 'node:net';
import { probeError, type ProbeError } from '../probe/outcome.ts';

/** Where direct mode dials a member, or why it will not dial what the pod's annotation names. */
export type DirectEndpoint = { readonly endpoint: string; readonly refused: null } | { readonly endpoint: string; readonly refused: ProbeError };

// A bracketed IPv6 host (as URL writes it) compared as the plain address a node reports.
function bare(host: string): string {
  const inner = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(inner) === 6 ? new URL(`https://[${inner}]`).hostname.slice(1, -1) : inner.toLowerCase();
}

function bracketed(ip: string): string {
  return ip.includes(':') ? `[${ip}]` : ip;
}

/**
 * The URL direct mode dials for the etcd pod on a node. kubeadm's `advertise-client-urls` annotation is
 * written by whoever may write pods in kube-system, so it is dialled only when it is https (the etcd
 * client certificate is never offered in clear text) and its host is one of the node's own addresses
 * (the member cannot be moved to another machine). Anything else is refused, not replaced by the
 * node's InternalIP:2379: a silently different target would hide that the annotation is wrong. Without
 * an annotation, the node's InternalIP on etcd's client port is dialled.
 */
export function directEndpoint(node: { readonly name: string; readonly internalIP: string | null }, addresses: readonly string[], pod: { readonly name: string; readonly namespace: string; readonly advertiseClientUrl: string | null } | null, port: number): DirectEndpoint | null {
  const annotated = pod?.advertiseClientUrl ?? null;
  if (pod === null || annotated === null) return node.internalIP ? { endpoint: `https://${bracketed(node.internalIP)}:${port}`, refused: null } : null;
  const where = `the advertise-client-urls annotation of pod ${pod.namespace}/${pod.name}`;
  const refuse = (endpoint: string, why: string): DirectEndpoint => ({ endpoint, refused: probeError('ENDPOINT_REFUSED', `not dialled: ${where} ${why}`, 'kube-api') });
  let url: URL;
  try {
    url = new URL(annotated);
  } catch {
    return refuse(`annotation://${pod.namespace}/${pod.name}`, 'is not a URL');
  }
  // Shown normalised (scheme, host, port), never as written.
  const shown = `${url.protocol}//${url.host}`;
  if (url.protocol !== 'https:') return refuse(shown, `is ${url.protocol.replace(/:$/, '')}, not https (the client certificate is offered over TLS only)`);
  if (url.username || url.password) return refuse(shown, 'carries credentials');
  const own = addresses.map(bare);
  if (!own.includes(bare(url.hostname))) {
    return refuse(shown, `names host ${url.hostname}, which is not an address of node ${node.name} (${own.length > 0 ? own.join(', ') : 'it reports none'})`);
  }
  return { endpoint: shown, refused: null };
}
