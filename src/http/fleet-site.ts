import type { FastifyRequest } from 'fastify';
import type { ClusterSlot } from '../fleet/cluster-slot.ts';
import type { Fleet } from '../fleet/fleet.ts';
import type { RoundHistory } from '../probe/history/round-history.ts';
import { ApiError, sanitised } from './api-error.ts';
import type { BearerAuth } from './bearer-guard.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { RouteDeps, RouteSite } from './route-deps.ts';

/** Where the routes of one cluster of a fleet are mounted; `{cluster}` is its name, URL-encoded (`default%2Fprod`). */
export const FLEET_PREFIX = '/clusters/:cluster';

/** What every cluster's routes share in fleet mode. */
export interface FleetShared {
  /** Epoch milliseconds. */
  readonly now: () => number;
  readonly lifecycle: Lifecycle;
  readonly auth: BearerAuth | null;
}

function depsOfSlot(slot: ClusterSlot, shared: FleetShared): RouteDeps {
  const { config } = slot.entry;
  return {
    cache: slot.cache,
    metrics: slot.metrics,
    config: { policy: config.policy, cacheTtlMs: config.cacheTtlMs, timeoutMs: config.timeoutMs, quotaBytes: config.quotaBytes },
    now: shared.now,
    lifecycle: shared.lifecycle,
    auth: shared.auth,
    thresholds: slot.thresholds,
    // Read after the request's round (the prober, and its history, exist from the first round on).
    get history(): RoundHistory {
      const history = slot.history;
      if (!history) throw new ApiError('CLUSTER_NOT_PROBED', `cluster ${slot.entry.name} has no rounds yet`);
      return history;
    },
  };
}

/**
 * The site of a fleet's cluster routes: `/clusters/{cluster}/...`, each request reading the cluster it
 * names (404 CLUSTER_NOT_FOUND for no such cluster, 503 CLUSTER_NOT_PROBED for one still provisioning,
 * paused or deleting). Asking about a cluster keeps its clients open (ClusterSlot.touch).
 */
export function fleetSite(fleet: Fleet, shared: FleetShared): RouteSite {
  const deps = new WeakMap<ClusterSlot, RouteDeps>();
  return {
    prefix: FLEET_PREFIX,
    depsOf(request: FastifyRequest): RouteDeps {
      const name = (request.params as { cluster?: string }).cluster ?? '';
      const slot = fleet.slot(name);
      if (!slot) throw new ApiError('CLUSTER_NOT_FOUND', `no cluster ${sanitised(name, 80)} in the fleet; GET /clusters lists them`);
      if (slot.entry.waiting !== null) throw new ApiError('CLUSTER_NOT_PROBED', `cluster ${slot.entry.name} is not probed now: ${slot.entry.waiting}`);
      slot.touch();
      let found = deps.get(slot);
      if (!found) {
        found = depsOfSlot(slot, shared);
        deps.set(slot, found);
      }
      return found;
    },
  };
}
