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

/** Adds a request header's name to an answer's Vary header (once). */
export function addVary(reply: FastifyReply, field: 'Accept' | 'Authorization'): void {
  const vary = reply.getHeader('vary');
  if (vary === undefined) {
    reply.header('vary', field);
    return;
  }
  const list = String(vary);
  if (!list.toLowerCase().split(/\s*,\s*/).includes(field.toLowerCase())) reply.header('vary', `${list}, ${field}`);
}

/** Adds `Authorization` to an answer's Vary header (once). */
export function varyByAuthorization(reply: FastifyReply): void {
  addVary(reply, 'Authorization');
}

/** `nosniff`, and HSTS on the HTTPS listener: for answers that no onSend hook sees (the router's refusals). */
export function setSecurityHeaders(reply: FastifyReply, https: boolean): void {
  reply.header('x-content-type-options', 'nosniff');
  if (https) reply.header('strict-transport-security', HSTS);
}

/**
 * Headers on every answer, errors and 404s included: `nosniff` (a browser must never guess a type
 * for an answer), HSTS on the HTTPS listener, for answers given for a credential `Cache-Control:
 * private` (and `Vary: Authorization` for the token) so that no shared cache hands them to others,
 * and `Connection: close` once `closing()` says shutdown has begun. One hook for all of it: a hook is
 * a cost on every answer.
 */
export function installResponseHeaders(app: FastifyInstance, options: { readonly https: boolean; readonly closing: () => boolean }): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    setSecurityHeaders(reply, options.https);
    // Answers close their connection once shutdown has begun, including those of requests that arrived
    // before: an idle keep-alive socket would otherwise hold server.close() open until the client's
    // keep-alive timeout.
    if (options.closing()) reply.header('connection', 'close');
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
