// Here rather than in http/: ETCD_PROBE_AUTH_ROUTES is validated against these paths, and config imports nothing
// of ours; http/ reads them from here.

/** Routes guarded by default when a token file is set: everything that names hosts, members or sizes. */
export const DEFAULT_GUARDED_ROUTES: readonly string[] = ['/members', '/alarms', '/history', '/disruption', '/metrics', '/', '/status/fragment', '/clusters'];

/** The kubelet's probes: answered without a client certificate even when mTLS is on. */
export const SERVICE_PROBE_PATHS: readonly string[] = ['/livez', '/readyz'];

/**
 * The routes every cluster has, as openapi.yaml writes them: at the root in single-cluster mode, under
 * /clusters/{cluster} in fleet mode. http/cluster-routes.ts registers them (a test holds both apps' routes to
 * this list), the fleet's 404 points paths under them to /clusters/{cluster}, and
 * scripts/docs/openapi-fleet.ts generates the fleet's paths from it.
 */
export const CLUSTER_ROUTES: readonly string[] = ['/healthz/etcd', '/healthz/etcd/members/{idOrName}', '/members', '/members/{idOrName}', '/alarms', '/history', '/disruption', '/disruption/{member}', '/', '/status/fragment'];

/** The routes of the service itself, in both modes (`/clusters` only in fleet mode). */
const SERVICE_ROUTES: readonly string[] = ['/metrics', '/livez', '/readyz', '/openapi.yaml', '/clusters'];

/**
 * Every route path the service serves without parameters, from the two lists above (a test holds the
 * app's routes to it). In fleet mode a cluster's routes, `/clusters/{cluster}/members` say, are guarded as
 * their path without the prefix is (`/members`); `/clusters` guards the list.
 */
export const ROUTE_PATHS: readonly string[] = [...CLUSTER_ROUTES.filter((route) => !route.includes('{')), ...SERVICE_ROUTES];

/** Whether a request path is (under) a cluster route other than `/`: a fleet answers it under /clusters/{cluster}. */
export function isClusterRoutePath(path: string): boolean {
  return CLUSTER_ROUTES.some((route) => {
    const fixed = route.split('/{')[0] as string;
    return fixed !== '/' && (path === fixed || path.startsWith(`${fixed}/`));
  });
}
