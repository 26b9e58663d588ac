import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Fleet } from '../../fleet/fleet.ts';
import { fleetExposition } from '../../metrics/fleet-exposition.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

const QUERY = queryRules('/metrics', {});

/** What the fleet's /metrics reads. */
export interface FleetMetricsDeps {
  readonly fleet: Fleet;
  /** The process's own registry (process metrics, the fleet's gauges). */
  readonly own: Registry;
}

/**
 * GET /metrics in fleet mode: the process's metrics, and every cluster this replica owns with a
 * `cluster` label, so that Prometheus scraping every replica sees each cluster exactly once. Starts no
 * round: the owned clusters are kept warm by the fleet's refresh. Not cacheable.
 */
export function fleetMetricsRoute(app: FastifyInstance, deps: FleetMetricsDeps): void {
  app.get('/metrics', async (request, reply) => {
    parseQuery(QUERY, request.query);
    reply.header('cache-control', 'no-store');
    reply.type(deps.own.contentType);
    const owned = deps.fleet.slots.filter((s) => s.owned && s.entry.waiting === null);
    return fleetExposition(
      deps.own,
      owned.map((s) => ({ cluster: s.entry.name, registry: s.metrics.registry })),
    );
  });
}
