import type { FastifyRequest } from 'fastify';
import type { ClusterSlot } from '../fleet/cluster-slot.ts';
import type { Fleet } from '../fleet/fleet.ts';
import type { RoundHistory } from '../probe/history/round-history.ts';
import { ApiError, sanitised } from './api-error.ts';
import type { BearerAuth } from './bearer-guard.ts';
import type { Lifecycle } from './lifecycle.ts';
import { verdictUnavailable, type RouteDeps, type RouteSite } from './route-deps.ts';
import { credentialOf } from './response-headers.ts';

/** Where the routes of one cluster of a fleet are mounted; `{cluster}` is its name, URL-encoded (`default%2Fprod`). */
export const FLEET_PREFIX = '/clusters/:cluster';

/** What every cluster's routes share in fleet mode. */
export interface FleetShared {
  /** Epoch milliseconds. */
  readonly now: () => number;
  readonly lifecycle: Lifecycle;
  readonly auth: BearerAuth | null;
  /** The fleet's refresh (ETCD_PROBE_FLEET_REFRESH): how often an owned cluster's round runs. */
  readonly refreshMs: number;
}

/** Whether a request comes without the token while a token file is set. */
function anonymous(request: FastifyRequest, auth: BearerAuth | null): boolean {
  return auth !== null && credentialOf(request) !== 'token' && auth.check(request.headers.authorization) !== 'ok';
}

function depsOfSlot(slot: ClusterSlot, shared: FleetShared, heldOnly: boolean): RouteDeps {
  const { config } = slot.entry;
  return {
    cache: slot.cache,
    metrics: slot.metrics,
    config: { policy: config.policy, cacheTtlMs: config.cacheTtlMs, timeoutMs: config.timeoutMs, quotaBytes: config.quotaBytes },
    now: shared.now,
    lifecycle: shared.lifecycle,
    auth: shared.auth,
    thresholds: slot.thresholds,
    heldOnly,
    // Read after the request's round (the prober, and its history, exist from the first round on).
    get history(): RoundHistory {
      const history = slot.history;
      if (!history) throw heldOnly ? verdictUnavailable() : new ApiError('CLUSTER_NOT_PROBED', `cluster ${slot.entry.name} has no rounds yet`);
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
  const heldDeps = new WeakMap<ClusterSlot, RouteDeps>();
  const cachedDeps = (slot: ClusterSlot, made: WeakMap<ClusterSlot, RouteDeps>, heldOnly: boolean): RouteDeps => {
    let found = made.get(slot);
    if (!found) {
      found = depsOfSlot(slot, shared, heldOnly);
      made.set(slot, found);
    }
    return found;
  };
  return {
    prefix: FLEET_PREFIX,
    depsOf(request: FastifyRequest): RouteDeps {
      const name = (request.params as { cluster?: string }).cluster ?? '';
      const slot = fleet.slot(name);
      // A caller without the token (when one is set) starts nothing and learns nothing of a cluster's
      // existence or lifecycle: it gets a round this replica already holds, young enough (its refresh or
      // TTL, plus one deadline), or the one uniform VERDICT_UNAVAILABLE; and it keeps no cluster open.
      if (anonymous(request, shared.auth)) {
        const held = slot && slot.entry.waiting === null ? slot.cache.peek() : null;
        const limit = slot ? Math.max(slot.entry.config.cacheTtlMs, shared.refreshMs) + slot.entry.config.timeoutMs : 0;
        if (!slot || held === null || shared.now() - held.completedAt > limit) throw verdictUnavailable();
        return cachedDeps(slot, heldDeps, true);
      }
      if (!slot) throw new ApiError('CLUSTER_NOT_FOUND', `no cluster ${sanitised(name, 80)} in the fleet; GET /clusters lists them`);
      if (slot.entry.waiting !== null) throw new ApiError('CLUSTER_NOT_PROBED', `cluster ${slot.entry.name} is not probed now: ${slot.entry.waiting}`);
      slot.touch();
      return cachedDeps(slot, deps, false);
    },
  };
}
