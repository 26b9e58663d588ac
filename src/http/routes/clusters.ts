import type { FastifyInstance } from 'fastify';
import type { ShardRef } from '../../config/config.ts';
import type { Fleet } from '../../fleet/fleet.ts';
import { clusterListDocument, clusterPath, clusterRow, type DiscoveryState } from '../cluster-list-document.ts';
import { STATUS_PAGE_CSP } from '../status-page/content-security-policy.ts';
import { renderFleetPage } from '../status-page/fleet-page.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

const LIST_QUERY = queryRules('/clusters', {});
const PAGE_QUERY = queryRules('/', {});

/** What the fleet-wide routes read. */
export interface FleetRouteDeps {
  readonly fleet: Fleet;
  readonly shard: ShardRef;
  /** The Cluster API listing's state; null for a clusters file. */
  readonly discovery: () => DiscoveryState | null;
  /** Epoch milliseconds. */
  readonly now: () => number;
  /** How often the page reloads itself. */
  readonly reloadSeconds: number;
}

/**
 * GET /clusters (every cluster: its latest verdict here, or why there is none) and GET / (the fleet as
 * a table, worst first; with a single cluster, that cluster's own page). Both read what the clusters
 * hold and start no round, so they answer at once however large the fleet: this replica's own clusters
 * are kept warm, the others show the rounds someone asked for here. Rendered per request: no-store.
 */
export function clusterListRoutes(app: FastifyInstance, deps: FleetRouteDeps): void {
  const rows = () => {
    const now = deps.now();
    return deps.fleet.slots.map((slot) => clusterRow(slot, now));
  };
  app.get('/clusters', (request, reply) => {
    parseQuery(LIST_QUERY, request.query);
    reply.header('cache-control', 'no-store');
    return clusterListDocument(rows(), deps.shard, deps.discovery());
  });
  app.get('/', (request, reply) => {
    parseQuery(PAGE_QUERY, request.query);
    reply.header('cache-control', 'no-store');
    const all = rows();
    const [only] = all;
    if (all.length === 1 && only) return reply.redirect(`.${clusterPath(only.name)}/`, 302);
    reply.type('text/html; charset=utf-8');
    reply.header('content-security-policy', STATUS_PAGE_CSP);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    return renderFleetPage(all, `${deps.shard.index}/${deps.shard.count}`, deps.reloadSeconds).markup;
  });
}
