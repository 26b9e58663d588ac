import type { FastifyInstance } from 'fastify';
import type { RouteSite } from './route-deps.ts';
import { alarmsRoute } from './routes/alarms.ts';
import { disruptionRoutes } from './routes/disruption.ts';
import { healthzRoute } from './routes/healthz.ts';
import { historyRoute } from './routes/history.ts';
import { memberHealthzRoute } from './routes/member-healthz.ts';
import { membersRoutes } from './routes/members.ts';
import { statusPageRoutes } from './routes/status-page.ts';

/**
 * Registers the routes every cluster has (config/route-paths.ts's CLUSTER_ROUTES) on a site: at the root
 * in single-cluster mode, under /clusters/:cluster in fleet mode. Both modes call this one function, so a
 * cluster route cannot exist in one and be missing from the other.
 */
export function clusterRoutes(server: FastifyInstance, site: RouteSite): void {
  healthzRoute(server, site);
  memberHealthzRoute(server, site);
  membersRoutes(server, site);
  alarmsRoute(server, site);
  historyRoute(server, site);
  disruptionRoutes(server, site);
  statusPageRoutes(server, site);
}
