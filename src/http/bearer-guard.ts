import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { checkBearer } from '../auth/bearer-token.ts';
import { errorBody } from './api-error.ts';

/** The realm named in every challenge. */
export const REALM = 'etcd-probe';

/** Whether a route URL (e.g. `/members/:idOrName`) is one of, or under one of, the guarded paths. */
export function isGuarded(url: string, routes: readonly string[]): boolean {
  return routes.some((r) => url === r || url.startsWith(`${r}/`));
}

/**
 * Requires `Authorization: Bearer <token>` on the routes under `routes`. Decided per route when it is
 * registered (so unguarded routes such as /healthz/etcd pay nothing), by the route matched rather than
 * the raw URL (so an encoded or odd spelling of a path cannot slip past). Call before adding routes.
 */
export function installBearerGuard(app: FastifyInstance, options: { readonly digest: () => Buffer; readonly routes: readonly string[] }): void {
  const guard = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const check = checkBearer(request.headers.authorization, options.digest());
    if (check === 'ok') {
      done();
      return;
    }
    const invalid = check === 'invalid';
    reply
      .code(401)
      .header('www-authenticate', invalid ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`)
      .send(errorBody('UNAUTHORIZED', invalid ? 'the bearer token is not valid' : 'this route needs a bearer token (Authorization: Bearer <token>)'));
  };
  app.addHook('onRoute', (route) => {
    if (!isGuarded(route.url, options.routes)) return;
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [guard, ...existing] as typeof route.onRequest;
  });
}
