import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api-error.ts';
import type { RouteDeps } from '../route-deps.ts';

/**
 * GET /livez and GET /readyz: the service's own health. Readiness never depends on etcd's: a pod that
 * went unready when etcd is unhealthy would hide the very answer it exists to give.
 */
export function serviceProbeRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.get('/livez', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => {
    if (!deps.lifecycle.ready) throw new ApiError('SHUTTING_DOWN', 'the service is shutting down');
    return { status: 'ok' };
  });
}
