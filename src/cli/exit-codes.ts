import type { HealthStatus } from '../probe/health-status.ts';

/** The verdict was healthy (`check`), or the server shut down cleanly (`serve`). */
export const EXIT_OK = 0;
/** `check`: the cluster is degraded. */
export const EXIT_DEGRADED = 1;
/** `check`: the cluster is unhealthy. */
export const EXIT_UNHEALTHY = 2;
/** sysexits.h EX_SOFTWARE: the probe itself failed (a bug), so the cluster's health is not known. */
export const EXIT_SOFTWARE = 70;
/** sysexits.h EX_CONFIG: the configuration or the command line is wrong. */
export const EXIT_CONFIG = 78;

/** The exit code `etcd-probe check` gives a verdict. */
export function exitCodeFor(status: HealthStatus): number {
  if (status === 'healthy') return EXIT_OK;
  return status === 'degraded' ? EXIT_DEGRADED : EXIT_UNHEALTHY;
}
