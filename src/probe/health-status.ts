/** The cluster's health in one word. */
export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';
