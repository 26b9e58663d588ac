import type { SecureContext } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import { Agent, buildConnector } from 'undici';
import { isIP } from 'node:net';
import { normalHost } from './api-endpoint.ts';
import type { DialGuard } from './dial-guard.ts';
import { sharedTlsContext } from './tls-context-cache.ts';

/** The most bytes of one answer of a tenant's API server that are read (a node or pod list of a control plane is far smaller). */
export const TENANT_RESPONSE_MAX_BYTES = 2 * 1024 * 1024;

/** The TLS options of a kubeconfig, as its public applyToHTTPSOptions gives them. */
interface HttpsOptions {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  pfx?: unknown;
  servername?: string;
  rejectUnauthorized?: boolean;
}

/** A connector per TLS context (and the server name and verification beside it): it also keeps TLS sessions, so that the next connection resumes one. */
const connectors = new WeakMap<SecureContext, Map<string, buildConnector.connector>>();

function connectorFor(context: SecureContext, options: HttpsOptions): buildConnector.connector {
  const key = `${options.servername ?? ''}|${String(options.rejectUnauthorized)}`;
  let byKey = connectors.get(context);
  if (!byKey) connectors.set(context, (byKey = new Map()));
  let connector = byKey.get(key);
  if (!connector) {
    connector = keepingSessions(
      buildConnector({
        secureContext: context,
        ...(options.servername !== undefined ? { servername: options.servername } : {}),
        // Unset: Node's default (verify), as client-node leaves it.
        ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
        // As client-node's own dispatcher (TCP keep-alive probes after 30 s, as client-go).
        keepAlive: true,
        keepAliveInitialDelay: 30_000,
      }),
    );
    byKey.set(key, connector);
  }
  return connector;
}

/**
 * undici's connector remembers TLS sessions through WeakRefs only, so a session is collected by the next
 * garbage collection: a request a round later (seconds, many collections apart) made a full handshake again.
 * This holds the latest session of the connector's connections strongly (one Buffer per connector), so
 * that undici's cache still has it. TLS 1.3 sends its tickets after the handshake, when the socket is
 * ours; a TLS 1.2 session arrives before, and still only lives as long as undici's WeakRef.
 */
function keepingSessions(connector: buildConnector.connector): buildConnector.connector {
  const held: { session?: Buffer } = {};
  const keep = (session: Buffer) => {
    held.session = session;
  };
  return (options, callback) =>
    connector(options, (...result) => {
      if (result[0] === null) result[1].on('session', keep);
      callback(...result);
    });
}

/** Without a CA or client certificate (a token and the system's CAs): one connector, keeping sessions as the others. */
let defaultConnector: buildConnector.connector | null = null;

/**
 * A connector that connects only to the kubeconfig's server (host and port, https). fetch follows
 * redirects with the same dispatcher, and a redirect to another origin needs a new connection: it
 * fails here, so that a server cannot send the service's requests on to an address of its choosing.
 */
function pinnedTo(server: string, connector: buildConnector.connector, guard: DialGuard | null): buildConnector.connector {
  const url = new URL(server);
  const host = normalHost(url.hostname);
  const port = url.port === '' ? 443 : Number(url.port);
  return (options, callback) => {
    const asked = normalHost(options.hostname);
    const askedPort = options.port === '' ? 443 : Number(options.port);
    if (options.protocol !== 'https:' || asked === null || asked !== host || askedPort !== port) {
      callback(Object.assign(new Error(`not connecting to another address than the kubeconfig's server (a redirect is not followed)`), { code: 'ERR_ETCD_PROBE_NOT_ALLOWED' }), null);
      return;
    }
    if (!guard) {
      connector(options, callback);
      return;
    }
    // The address checked is the address dialled (no second lookup); the certificate is still verified for the name.
    const name = options.hostname.replace(/^\[(.*)\]$/, '$1');
    guard.resolve(name).then(
      (address) => connector({ ...options, hostname: address, ...(isIP(name) === 0 ? { servername: options.servername ?? name } : {}) }, callback),
      (error: Error) => callback(error, null),
    );
  };
}

/**
 * The dispatcher of a kubeconfig someone else wrote (a Secret's): always ours, never client-node's own,
 * connecting only to its server and never to an address the guard denies (no redirect to another origin is followed; no proxy, which a Secret's
 * kubeconfig cannot name and the environment does not set for a request's own dispatcher), and reading
 * at most TENANT_RESPONSE_MAX_BYTES of an answer. Its owner closes it after the answer.
 */
export async function tenantApiDispatcher(config: KubeConfig, guard: DialGuard | null): Promise<Agent> {
  const server = config.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig names no current cluster');
  const options: HttpsOptions = {};
  await config.applyToHTTPSOptions(options as Parameters<KubeConfig['applyToHTTPSOptions']>[0]);
  const context = sharedTlsContext(config, options);
  const connector = context
    ? connectorFor(context, options)
    : (defaultConnector ??= keepingSessions(buildConnector({ keepAlive: true, keepAliveInitialDelay: 30_000 })));
  return new Agent({ connect: pinnedTo(server, connector, guard), maxResponseSize: TENANT_RESPONSE_MAX_BYTES });
}

/**
 * A dispatcher for one API request that connects with the kubeconfig's TLS context made once (not once per
 * request) and resumes TLS sessions of earlier requests to the same server, or null where client-node's
 * own dispatcher must stay: a proxy, a PKCS#12 bundle, or no CA and no client certificate. Like
 * client-node's, it is the request's own: its owner closes it after the answer, so that no connection
 * lingers. Client-node still adds the request's credentials (headers); only the connection is made here.
 */
export async function apiDispatcher(config: KubeConfig): Promise<Agent | null> {
  if (config.getCurrentCluster()?.proxyUrl) return null;
  const options: HttpsOptions = {};
  await config.applyToHTTPSOptions(options as Parameters<KubeConfig['applyToHTTPSOptions']>[0]);
  const context = sharedTlsContext(config, options);
  return context ? new Agent({ connect: connectorFor(context, options) }) : null;
}
