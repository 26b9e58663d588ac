import type { AddressInfo } from 'node:net';

/**
 * The URLs a listener's bound addresses are reached at, for the start log: `http://127.0.0.1:8080`,
 * `https://[::1]:8443`. The port is the one bound (an ETCD_PROBE_LISTEN port 0 picks one).
 */
export function listenUrls(addresses: readonly (AddressInfo | string)[], secure: boolean): string[] {
  const scheme = secure ? 'https' : 'http';
  // A string is a pipe or unix socket path, which ETCD_PROBE_LISTEN (host:port) never binds.
  return addresses.filter((a): a is AddressInfo => typeof a !== 'string').map((a) => `${scheme}://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`);
}
