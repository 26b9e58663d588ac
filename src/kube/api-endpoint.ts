import { isIP } from 'node:net';
import type { ApiEndpoint } from '../config/config.ts';
import { KubeError } from './kube-error.ts';

// A DNS name as Kubernetes and Cluster API accept one (RFC 1123 labels), at most 253 characters.
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/;

/** A host as it may be compared and shown: lowercase, IPv6 without brackets, or null when it is neither an IP address nor a DNS name. */
export function normalHost(host: string): string | null {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (isIP(bare) !== 0 || DNS_NAME.test(bare)) return bare;
  return null;
}

/** `spec.controlPlaneEndpoint` of a Cluster object, or null when it is missing or not a valid host and port (an unset endpoint is host "" and port 0). */
export function toApiEndpoint(value: unknown): ApiEndpoint | null {
  if (typeof value !== 'object' || value === null) return null;
  const { host, port } = value as { host?: unknown; port?: unknown };
  if (typeof host !== 'string' || typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) return null;
  const normal = normalHost(host);
  return normal === null ? null : { host: normal, port };
}

/** host:port, with brackets around an IPv6 address. */
export function endpointText(endpoint: ApiEndpoint): string {
  return isIP(endpoint.host) === 6 ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
}

/**
 * Whether a Secret's kubeconfig may be used: its server's host and port must be the Cluster's
 * `spec.controlPlaneEndpoint` (what Cluster API itself writes into the kubeconfig), so that whoever
 * writes the Secret cannot point the service's requests at another address. A path after the host is
 * allowed (an API server behind a path-routing proxy); it cannot leave the endpoint's host and port.
 * Throws a KubeError of kind `not-allowed` naming both sides (validated host:port only, never the
 * rest of the URL).
 */
export function checkServerAgainstEndpoint(server: string, endpoint: ApiEndpoint | null, cluster: string, label: string): void {
  if (endpoint === null) {
    throw new KubeError('not-allowed', `Cluster ${cluster} has no valid spec.controlPlaneEndpoint, so the server of ${label} cannot be checked against it; the cluster is not probed`);
  }
  const url = new URL(server);
  const host = normalHost(url.hostname);
  const port = url.port === '' ? 443 : Number(url.port);
  if (host === endpoint.host && port === endpoint.port) return;
  const named = host === null ? 'a host that is not a DNS name or IP address' : endpointText({ host, port });
  throw new KubeError(
    'not-allowed',
    `the server of ${label} (${named}) is not Cluster ${cluster}'s spec.controlPlaneEndpoint (${endpointText(endpoint)}); the cluster is not probed`,
  );
}
