import { createSecureContext, type SecureContext } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';

/** PEM material as KubeConfig's applyToHTTPSOptions gives it. */
type Pem = string | Buffer | ReadonlyArray<string | Buffer> | undefined;

/** The TLS material a context was made from, to tell whether the kubeconfig's still is the same. */
interface ContextEntry {
  readonly ca: Pem;
  readonly cert: Pem;
  readonly key: Pem;
  readonly context: SecureContext;
}

/** One context per kubeconfig (while its credentials stay the same), for its WebSockets and its API requests alike. */
const contexts = new WeakMap<KubeConfig, ContextEntry>();

function samePem(a: Pem, b: Pem): boolean {
  return a === b || (Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b));
}

/**
 * The TLS context for a connection of this kubeconfig with these options (from `applyToHTTPSOptions`),
 * made once per kubeconfig and credentials, not once per connection: Node makes one per connection
 * otherwise, parsing the CA, certificate and key each time, and a fleet connects to API servers many
 * times a second (port-forward WebSockets, API requests). A kubeconfig whose CA, certificate or key
 * changed gets a new one. None for options it cannot make one from (a PKCS#12 bundle, or no CA and no
 * certificate): those connect as they would without it.
 */
export function sharedTlsContext(config: KubeConfig, options: object): SecureContext | undefined {
  const { ca, cert, key, pfx } = options as { ca?: Pem; cert?: Pem; key?: Pem; pfx?: unknown };
  if (pfx !== undefined || (ca === undefined && cert === undefined)) return undefined;
  const cached = contexts.get(config);
  if (cached && samePem(cached.ca, ca) && samePem(cached.cert, cert) && samePem(cached.key, key)) return cached.context;
  const context = createSecureContext({ ca: ca as string | Buffer, cert: cert as string | Buffer, key: key as string | Buffer });
  contexts.set(config, { ca, cert, key, context });
  return context;
}
