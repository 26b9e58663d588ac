// Here rather than in http/: ETCD_PROBE_AUTH_ROUTES is validated against these paths, and config imports nothing
// of ours; http/ reads them from here.

/**
 * Every route path the service serves, without parameters (a test holds the app's routes to it). In fleet
 * mode a cluster's routes, `/clusters/{cluster}/members` say, are guarded as their path without the
 * prefix is (`/members`); `/clusters` guards the list.
 */
export const ROUTE_PATHS: readonly string[] = ['/healthz/etcd', '/members', '/alarms', '/history', '/disruption', '/metrics', '/', '/status/fragment', '/livez', '/readyz', '/openapi.yaml', '/clusters'];

/** Routes guarded by default when a token file is set: everything that names hosts, members or sizes. */
export const DEFAULT_GUARDED_ROUTES: readonly string[] = ['/members', '/alarms', '/history', '/disruption', '/metrics', '/', '/status/fragment', '/clusters'];

/** The kubelet's probes: answered without a client certificate even when mTLS is on. */
export const SERVICE_PROBE_PATHS: readonly string[] = ['/livez', '/readyz'];
