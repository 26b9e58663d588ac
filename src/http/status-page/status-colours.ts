import type { HealthStatus } from '../../probe/health-status.ts';

/** The banner colour of each verdict; also the favicon's, so a background tab shows the state. */
export const STATUS_COLOURS: Readonly<Record<HealthStatus, string>> = {
  healthy: '#1a7f37',
  degraded: '#b35c00',
  unhealthy: '#c62828',
};

/** A one-dot SVG favicon in a verdict's colour, as a data: URL (the CSP allows data: images only). */
export function statusIcon(status: HealthStatus): string {
  const svg = `<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><circle cx='8' cy='8' r='7' fill='${STATUS_COLOURS[status]}'/></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}
