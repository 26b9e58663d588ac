import type { ServerOptions } from 'node:http';
import type { TlsMaterial } from '../tls/tls-files.ts';

/**
 * The listener's limits. The API takes no bodies and small headers: a client gets 10 s to complete
 * the TLS handshake (Node's default is 120 s, long enough for a few half-open sockets to hold every
 * connection slot for two minutes), 10 s to send its headers and 15 s for the whole request; slow
 * clients are checked every 2 s, not Node's 30 s. Idle keep-alive connections stay open 72 s, longer
 * than common load balancer idle timeouts (60 s), so that the balancer, not the service, closes them
 * and never sends a request into a socket being closed.
 */
export const LISTENER_LIMITS = {
  bodyLimit: 1024,
  maxHeaderBytes: 8 * 1024,
  handshakeTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 72_000,
  connectionsCheckingIntervalMs: 2_000,
} as const;

/** Options of Node's HTTP server (also taken by the HTTPS server) that set the limits. */
export function httpServerOptions(): ServerOptions {
  return {
    maxHeaderSize: LISTENER_LIMITS.maxHeaderBytes,
    headersTimeout: LISTENER_LIMITS.headersTimeoutMs,
    requestTimeout: LISTENER_LIMITS.requestTimeoutMs,
    connectionsCheckingInterval: LISTENER_LIMITS.connectionsCheckingIntervalMs,
  };
}

/** The secure-context part of the listener's TLS: certificate, key, and the client CA when set. */
export function secureContextOptions(material: TlsMaterial): { cert: Buffer; key: Buffer; ca?: Buffer } {
  if (!material.cert || !material.key) throw new Error('listener TLS material lacks a certificate or key');
  return { cert: material.cert, key: material.key, ...(material.ca ? { ca: material.ca } : {}) };
}

/**
 * Options of the HTTPS server: the limits, the material, a bounded handshake, and with a client CA a
 * client certificate asked for but not demanded at the handshake: mTLS is enforced per route
 * (client-certificate-guard.ts), so that the kubelet's probes, which present none, still work.
 */
export function httpsServerOptions(material: TlsMaterial): ServerOptions & Record<string, unknown> {
  return {
    ...httpServerOptions(),
    ...secureContextOptions(material),
    minVersion: 'TLSv1.2',
    handshakeTimeout: LISTENER_LIMITS.handshakeTimeoutMs,
    ...(material.ca ? { requestCert: true, rejectUnauthorized: false } : {}),
  };
}

/**
 * The router's limits: a path parameter may be as long as a fleet's cluster key, `namespace/name` (63 + 1 +
 * 253 = 317 characters, 319 with the slash sent as %2F), and so as a member's name or ID, rather than
 * Fastify's 100; longer is a 414.
 */
export const ROUTER_LIMITS = {
  maxParamLength: 320,
} as const;
