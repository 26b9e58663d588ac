import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../route-deps.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

const QUERY = queryRules('/metrics', {});

/**
 * GET /metrics: Prometheus text; a scrape shows the latest round and starts one when the cache is stale.
 * Not cacheable: beside the round it counts the requests and the process, as of this scrape.
 */
export function metricsRoute(app: FastifyInstance, deps: RouteDeps): void {
  app.get('/metrics', async (request, reply) => {
    parseQuery(QUERY, request.query);
    const read = await deps.cache.get();
    deps.metrics.countRequest('/metrics', read.cache);
    reply.header('cache-control', 'no-store');
    reply.type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
}
