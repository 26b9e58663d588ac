import type { Policy } from '../config/config.ts';
import type { HealthStatus } from '../probe/health-status.ts';

/** The HTTP status `/healthz/etcd` answers: 503 when unhealthy, and when degraded under `strict`. */
export function httpStatusFor(status: HealthStatus, policy: Policy): 200 | 503 {
  if (status === 'unhealthy') return 503;
  if (status === 'degraded' && policy === 'strict') return 503;
  return 200;
}
