import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Which credential an answer was given for: none, the bearer token, or only a verified client certificate. */
export type Credential = 'none' | 'token' | 'certificate';

const CREDENTIAL = Symbol('credential');

interface Credentialed {
  [CREDENTIAL]?: Credential;
}

/** Records that a request passed a guard, so that its answer is kept out of shared caches. */
export function markCredentialed(request: FastifyRequest, credential: Exclude<Credential, 'none'>): void {
  const held = request as FastifyRequest & Credentialed;
  // The token outranks a certificate: an answer for it must also vary by Authorization.
  if (held[CREDENTIAL] !== 'token') held[CREDENTIAL] = credential;
}

/** The credential a request was answered for. */
export function credentialOf(request: FastifyRequest): Credential {
  return (request as FastifyRequest & Credentialed)[CREDENTIAL] ?? 'none';
}

/** One year: browsers that reached the HTTPS listener once keep to HTTPS for it. */
export const HSTS = 'max-age=31536000';

/** Adds `Authorization` to an answer's Vary header (once). */
export function varyByAuthorization(reply: FastifyReply): void {
  const vary = String(reply.getHeader('vary') ?? '');
  if (!/\bauthorization\b/i.test(vary)) reply.header('vary', vary ? `${vary}, Authorization` : 'Authorization');
}

/**
 * Headers on every answer, errors and 404s included: `nosniff` (400 and 404 messages quote the
 * request), HSTS on the HTTPS listener, and for answers given for a credential `Cache-Control:
 * private` (and `Vary: Authorization` for the token) so that no shared cache hands them to others.
 */
export function installResponseHeaders(app: FastifyInstance, options: { readonly https: boolean }): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    if (options.https) reply.header('strict-transport-security', HSTS);
    const credential = credentialOf(request);
    if (credential !== 'none') {
      const cacheControl = reply.getHeader('cache-control');
      if (cacheControl === undefined) reply.header('cache-control', 'private');
      else if (!/\b(private|no-store)\b/.test(String(cacheControl))) reply.header('cache-control', `private, ${String(cacheControl)}`);
      if (credential === 'token') varyByAuthorization(reply);
    }
    done(null, payload);
  });
}
