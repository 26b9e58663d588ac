import { DEFAULT_GUARDED_ROUTES, ROUTE_PATHS } from './route-paths.ts';
import type { SettingGroup } from './setting.ts';
import { parseDuration, parseInteger, parseRoutePaths } from './value-parsers.ts';

/** The settings of the HTTP listener: bearer token, HTTPS, connection limits, shutdown, in help order. */
export const LISTENER_SETTINGS = {
  authTokenFile: {
    key: 'authTokenFile',
    env: 'ETCD_PROBE_AUTH_TOKEN_FILE',
    flag: 'auth-token-file',
    fallback: null,
    absent: null,
    help: 'file holding a bearer token that the routes of --auth-routes then require, and without which /healthz/etcd answers a summary (re-read when it changes; unusable: no token accepted)',
    parse: (raw) => raw,
  },
  authRoutes: {
    key: 'authRoutes',
    env: 'ETCD_PROBE_AUTH_ROUTES',
    flag: 'auth-routes',
    fallback: DEFAULT_GUARDED_ROUTES.join(','),
    help: `comma-separated routes guarded by the token (each covers its sub-paths; /clusters all of /clusters/{cluster}/… but the verdict routes, which follow /healthz/etcd); of ${ROUTE_PATHS.join(', ')}`,
    parse: (raw) => parseRoutePaths(raw, ROUTE_PATHS),
  },
  tlsCertFile: {
    key: 'tlsCertFile',
    env: 'ETCD_PROBE_TLS_CERT',
    flag: 'tls-cert',
    fallback: null,
    absent: null,
    help: "PEM serving certificate of the listener (HTTPS); re-read when it changes",
    parse: (raw) => raw,
  },
  tlsKeyFile: {
    key: 'tlsKeyFile',
    env: 'ETCD_PROBE_TLS_KEY',
    flag: 'tls-key',
    fallback: null,
    absent: null,
    help: 'PEM private key of the serving certificate',
    parse: (raw) => raw,
  },
  tlsClientCaFile: {
    key: 'tlsClientCaFile',
    env: 'ETCD_PROBE_TLS_CLIENT_CA',
    flag: 'tls-client-ca',
    fallback: null,
    absent: null,
    help: 'PEM CA that clients must present a certificate from (mTLS) on every route but /livez and /readyz; needs --tls-cert',
    parse: (raw) => raw,
  },
  maxConnections: {
    key: 'maxConnections',
    env: 'ETCD_PROBE_MAX_CONNECTIONS',
    flag: 'max-connections',
    fallback: '1024',
    help: 'open connections the listener accepts; more are closed at once (1 to 1000000)',
    parse: (raw) => parseInteger(raw, 1, 1_000_000),
  },
  maxConnectionsPerClient: {
    key: 'maxConnectionsPerClient',
    env: 'ETCD_PROBE_MAX_CONNECTIONS_PER_CLIENT',
    flag: 'max-connections-per-client',
    fallback: '64',
    help: 'open connections one client address may hold; more are closed at once (1 to 1000000)',
    parse: (raw) => parseInteger(raw, 1, 1_000_000),
  },
  shutdownDelayMs: {
    key: 'shutdownDelayMs',
    env: 'ETCD_PROBE_SHUTDOWN_DELAY',
    flag: 'shutdown-delay',
    fallback: '0s',
    help: 'after SIGTERM, keep serving this long with /readyz failing before closing the listener (0s to 60s)',
    parse: (raw) => parseDuration(raw, 0, 60_000),
  },
} satisfies SettingGroup;
