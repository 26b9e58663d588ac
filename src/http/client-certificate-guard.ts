import type { TLSSocket } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { sendError } from './error-reply.ts';
import { markCredentialed } from './response-headers.ts';

/**
 * mTLS per route. The TLS layer asks every client for a certificate but completes the handshake
 * without one, so that the kubelet's `httpGet` probes (which present none) reach `exempt` (/livez,
 * /readyz); every other answer, 404s included, needs a certificate that verified against the client
 * CA, else 401 in the common envelope.
 */
export function installClientCertificateGuard(app: FastifyInstance, exempt: readonly string[]): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (exempt.includes(request.routeOptions.url ?? '')) {
      done();
      return;
    }
    const socket = request.raw.socket as TLSSocket;
    if (socket.authorized === true) {
      markCredentialed(request, 'certificate');
      done();
      return;
    }
    // The OpenSSL code says why a presented certificate failed (e.g. UNABLE_TO_VERIFY_LEAF_SIGNATURE), never its content.
    const presented = Object.keys(socket.getPeerCertificate?.() ?? {}).length > 0;
    const why = presented ? `the client certificate was not accepted (${String(socket.authorizationError ?? 'not verified')})` : 'no client certificate was presented';
    reply.header('cache-control', 'no-store');
    sendError(request, reply, 'UNAUTHORIZED', `this route needs a client certificate signed by the CA this service trusts for clients (mTLS): ${why}`);
  });
}
