import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api-error.ts';
import type { RouteDeps } from '../route-deps.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

const LIVEZ_QUERY = queryRules('/livez', {});
const READYZ_QUERY = queryRules('/readyz', {});

/**
 * GET /livez and GET /readyz: the service's own health. Readiness never depends on etcd's: a pod that
 * went unready when etcd is unhealthy would hide the very answer it exists to give. Never stored: each
 * answer is about the moment it is given.
 */
export function serviceProbeRoutes(app: FastifyInstance, deps: Pick<RouteDeps, 'lifecycle'>): void {
  app.get('/livez', async (request, reply) => {
    parseQuery(LIVEZ_QUERY, request.query);
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });
  app.get('/readyz', async (request, reply) => {
    parseQuery(READYZ_QUERY, request.query);
    reply.header('cache-control', 'no-store');
    if (!deps.lifecycle.ready) throw new ApiError('SHUTTING_DOWN', 'the service is shutting down');
    return { status: 'ok' };
  });
}
