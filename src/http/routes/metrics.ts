import type { FastifyInstance } from 'fastify';
import { readSnapshot, type RouteDeps } from '../route-deps.ts';

/** GET /metrics: Prometheus text; a scrape shows the latest round and starts one when the cache is stale. */
export function metricsRoute(app: FastifyInstance, deps: RouteDeps): void {
  app.get('/metrics', async (_request, reply) => {
    await readSnapshot(deps, '/metrics', reply);
    reply.type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
}
