/** Every route path the service serves, without parameters (a test holds the app's routes to it). */
export const ROUTE_PATHS: readonly string[] = ['/healthz/etcd', '/members', '/alarms', '/history', '/disruption', '/metrics', '/livez', '/readyz', '/openapi.yaml'];
