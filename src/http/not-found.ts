import { METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sanitised } from './api-error.ts';
import { sendError } from './error-reply.ts';

/** A route's path template and the methods it answers. */
interface KnownPath {
  readonly template: string;
  readonly pattern: RegExp;
  readonly allow: string;
}

function knownPaths(routes: readonly string[]): KnownPath[] {
  const methods = new Map<string, string[]>();
  for (const route of routes) {
    const [method = '', url = ''] = route.split(' ');
    methods.set(url, [...(methods.get(url) ?? []), method]);
  }
  return [...methods].map(([url, list]) => ({
    template: url.replace(/:(\w+)/g, '{$1}'),
    pattern: new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}$`),
    allow: [...new Set(list)].sort((a, b) => (a === 'GET' ? -1 : b === 'GET' ? 1 : a.localeCompare(b))).join(', '),
  }));
}

/**
 * Answers requests no route takes: 405 with `Allow` when the path is served by other methods (`POST
 * /healthz/etcd`), 404 otherwise, both in the envelope. The answer is given in an onRequest hook of the
 * not-found context, before any body is read: a POST with a body learns 405, not 413 or 415. Every method
 * Node's parser knows is routed here (Fastify routes only the common ones by default), so that `PURGE`
 * or `PROPFIND` get the same answers. `routes` lists the app's routes as `METHOD /url`; it is read on
 * the first such request, once every route is registered. `hint` may word a 404 for a path that is not
 * served in this mode (fleet mode's single-cluster routes).
 */
export function installNotFound(app: FastifyInstance, routes: () => readonly string[], hint: (path: string) => string | null = () => null): void {
  for (const method of METHODS) {
    // CONNECT never reaches a request handler in Node (it is the 'connect' event).
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }
  let known: KnownPath[] | null = null;
  const answer = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    known ??= knownPaths(routes());
    const path = request.url.split('?', 1)[0] ?? '';
    // GET and HEAD that land here matched no route: a 404, whatever the path looks like.
    const match = request.method === 'GET' || request.method === 'HEAD' ? undefined : known.find((k) => k.pattern.test(path));
    if (match) {
      reply.header('allow', match.allow);
      return sendError(request, reply, 'METHOD_NOT_ALLOWED', `${match.template} answers ${match.allow} only`);
    }
    return sendError(request, reply, 'NOT_FOUND', hint(path) ?? `no route ${request.method} ${sanitised(path, 64)}; /openapi.yaml lists the routes`);
  };
  // An encapsulated context, so that its hook applies to the not-found handler only, not to the routes.
  app.register(async (scope) => {
    // Answered in the hook, without calling done: Fastify goes no further (no body is parsed).
    scope.addHook('onRequest', (request, reply, _done) => {
      answer(request, reply);
    });
    scope.setNotFoundHandler(answer);
  });
}
