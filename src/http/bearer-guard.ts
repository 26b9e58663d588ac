import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { checkBearer, type BearerCheck } from '../auth/bearer-token.ts';
import { sendError } from './error-reply.ts';
import { markCredentialed } from './response-headers.ts';

/** The realm named in every challenge. */
export const REALM = 'etcd-probe';

/** What a request's Authorization header proves, or `unusable` while the token file holds no usable token. */
export type AccessCheck = BearerCheck | 'unusable';

/** Checks requests against the token in force; routes that answer differently with it (/healthz/etcd) use it too. */
export interface BearerAuth {
  check(authorization: string | undefined): AccessCheck;
}

/** A BearerAuth over the digest of the token in force (null: the file is unusable, so nothing is accepted). */
export function bearerAuth(digest: () => Buffer | null): BearerAuth {
  return {
    check(authorization) {
      const expected = digest();
      return expected === null ? 'unusable' : checkBearer(authorization, expected);
    },
  };
}

const CLUSTER_PREFIX = '/clusters/:cluster';

/**
 * Whether a route URL (e.g. `/members/:idOrName`) is one of, or under one of, the guarded paths. A fleet
 * cluster's route (`/clusters/:cluster/members`) is guarded as the same route of one cluster (`/members`),
 * and by `/clusters` too, which covers the routes under it as every listed route does, except a cluster's
 * verdict routes (`/clusters/:cluster/healthz/etcd` and its per-member checks): those follow
 * `/healthz/etcd`, so that a load balancer without the token still gets its summary (and its status code).
 */
export function isGuarded(url: string, routes: readonly string[]): boolean {
  const inCluster = url === CLUSTER_PREFIX || url.startsWith(`${CLUSTER_PREFIX}/`);
  const path = inCluster ? url.slice(CLUSTER_PREFIX.length) || '/' : url;
  const verdict = path === '/healthz/etcd' || path.startsWith('/healthz/etcd/');
  if (inCluster && !verdict && routes.includes('/clusters')) return true;
  return routes.some((r) => path === r || path.startsWith(`${r}/`));
}

const MESSAGES: Record<Exclude<AccessCheck, 'ok'>, string> = {
  missing: 'this route needs a bearer token (Authorization: Bearer <token>)',
  invalid: 'the bearer token is not valid',
  unusable: "no bearer token is accepted now: the service's token file is unusable (its log says why)",
};

/**
 * Answers 401 with a Bearer challenge (`error="invalid_token"` when a token came or none can be
 * accepted). `basic` adds a Basic challenge, so that a browser opening the status page shows its
 * login prompt (the token as the password). Never cached.
 */
export function refuseUnauthenticated(request: FastifyRequest, reply: FastifyReply, check: Exclude<AccessCheck, 'ok'>, basic = false): FastifyReply {
  const bearer = check === 'missing' ? `Bearer realm="${REALM}"` : `Bearer realm="${REALM}", error="invalid_token"`;
  reply.header('www-authenticate', basic ? [bearer, `Basic realm="${REALM}", charset="UTF-8"`] : bearer).header('cache-control', 'no-store');
  return sendError(request, reply, 'UNAUTHORIZED', MESSAGES[check]);
}

/**
 * Requires the token on the routes under `routes`. Decided per route when it is registered (so unguarded
 * routes such as /livez pay nothing), by the route matched rather than the raw URL (so an encoded or
 * odd spelling of a path cannot slip past). Call before adding routes.
 */
export function installBearerGuard(app: FastifyInstance, options: { readonly auth: BearerAuth; readonly routes: readonly string[] }): void {
  app.addHook('onRoute', (route) => {
    if (!isGuarded(route.url, options.routes)) return;
    // Only the page itself asks a browser for credentials; its fragment is fetched with the ones given.
    const basic = route.url === '/' || route.url === `${CLUSTER_PREFIX}/`;
    const guard = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
      const check = options.auth.check(request.headers.authorization);
      if (check === 'ok') {
        markCredentialed(request, 'token');
        done();
        return;
      }
      refuseUnauthenticated(request, reply, check, basic);
    };
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [guard, ...existing] as typeof route.onRequest;
  });
}
