import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTestPki, type PkiFiles } from '../fixtures/certs.ts';
import { errorsOf, ok, resolve } from './load-config-helpers.ts';

// The listener's settings: the bearer token and its routes, HTTPS and mTLS files, connection limit.

let dir: string;
let pki: PkiFiles;
let tokenFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-listener-config-'));
  pki = await writeTestPki(dir);
  tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'abc123\n');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the bearer token', () => {
  it('is read from its file, trimmed, and guards /members, /alarms, /metrics and the status page by default', () => {
    const result = ok(resolve({ ETCD_PROBE_AUTH_TOKEN_FILE: tokenFile }));
    expect(result.auth).toEqual({ file: { path: tokenFile, source: 'ETCD_PROBE_AUTH_TOKEN_FILE' }, token: 'abc123' });
    expect(result.config.authRoutes).toEqual(['/members', '/alarms', '/history', '/disruption', '/metrics', '/', '/status/fragment', '/clusters']);
    expect(Object.isFrozen(result.config.authRoutes)).toBe(true);
    expect(result.warnings).toEqual(['the bearer token of ETCD_PROBE_AUTH_TOKEN_FILE travels in clear text: set ETCD_PROBE_TLS_CERT for HTTPS']);
  });

  it('does not warn about clear text on a loopback listener or over HTTPS', () => {
    expect(ok(resolve({ ETCD_PROBE_AUTH_TOKEN_FILE: tokenFile, ETCD_PROBE_LISTEN: '127.0.0.1:8080' })).warnings).toEqual([]);
    const https = { ETCD_PROBE_AUTH_TOKEN_FILE: tokenFile, ETCD_PROBE_TLS_CERT: pki.serverCertFile, ETCD_PROBE_TLS_KEY: pki.serverKeyFile };
    expect(ok(resolve(https)).warnings).toEqual([]);
  });

  it('is an error when the file is empty, naming the variable', () => {
    const empty = join(dir, 'empty-token');
    writeFileSync(empty, '\n');
    expect(errorsOf(resolve({ ETCD_PROBE_AUTH_TOKEN_FILE: empty }))).toEqual([`ETCD_PROBE_AUTH_TOKEN_FILE: ${empty} is empty (it must hold the bearer token)`]);
    expect(errorsOf(resolve({}, [`--auth-token-file=${join(dir, 'nope')}`]))).toEqual([`--auth-token-file: cannot read ${join(dir, 'nope')}: no such file`]);
  });

  it('guards the routes given, each once, trailing slashes ignored', () => {
    const result = ok(resolve({ ETCD_PROBE_AUTH_TOKEN_FILE: tokenFile, ETCD_PROBE_LISTEN: ':0', ETCD_PROBE_AUTH_ROUTES: ' /members/, /healthz/etcd ,/members,/openapi.yaml' }));
    expect(result.config.authRoutes).toEqual(['/members', '/healthz/etcd', '/openapi.yaml']);
  });

  it.each([
    ['members', "ETCD_PROBE_AUTH_ROUTES: 'members' is not a path (it must start with /)"],
    ['/members,/nodes', "ETCD_PROBE_AUTH_ROUTES: '/nodes' is no route of this service; routes: /healthz/etcd, /members, /alarms, /history, /disruption, /, /status/fragment, /metrics, /livez, /readyz, /openapi.yaml, /clusters"],
    ['/members/m1', "ETCD_PROBE_AUTH_ROUTES: '/members/m1' is no route of this service; routes: /healthz/etcd, /members, /alarms, /history, /disruption, /, /status/fragment, /metrics, /livez, /readyz, /openapi.yaml, /clusters"],
    [',', 'ETCD_PROBE_AUTH_ROUTES: no route given (e.g. /healthz/etcd,/members)'],
  ])('refuses routes %j', (routes, message) => {
    expect(errorsOf(resolve({ ETCD_PROBE_AUTH_TOKEN_FILE: tokenFile, ETCD_PROBE_AUTH_ROUTES: routes }))).toEqual([message]);
  });

  it('warns when routes are set but no token is', () => {
    expect(ok(resolve({ ETCD_PROBE_AUTH_ROUTES: '/members' })).warnings).toEqual([
      'ETCD_PROBE_AUTH_ROUTES is set but ETCD_PROBE_AUTH_TOKEN_FILE is not, so every route is open',
    ]);
  });
});

describe('HTTPS on the listener', () => {
  it('reads and checks the serving certificate, key and client CA', () => {
    const result = ok(resolve({ ETCD_PROBE_TLS_CERT: pki.serverCertFile, ETCD_PROBE_TLS_KEY: pki.serverKeyFile, ETCD_PROBE_TLS_CLIENT_CA: pki.caFile }));
    expect(result.config.tlsCertFile).toBe(pki.serverCertFile);
    expect(result.listenerTls?.material.cert?.toString()).toContain('BEGIN CERTIFICATE');
    expect(result.listenerTls?.material.ca).not.toBeNull();
    expect(result.listenerTls?.files.ca).toEqual({ path: pki.caFile, source: 'ETCD_PROBE_TLS_CLIENT_CA' });
    // The etcd client side is untouched.
    expect(result.tls).toEqual({ ca: null, cert: null, key: null });
  });

  it('reports every problem of the listener files, naming each setting', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_TLS_CERT: pki.serverCertFile }))).toEqual(['ETCD_PROBE_TLS_KEY: required when ETCD_PROBE_TLS_CERT is set']);
    expect(errorsOf(resolve({ ETCD_PROBE_TLS_CLIENT_CA: pki.caFile }))).toEqual([
      'ETCD_PROBE_TLS_CLIENT_CA: needs ETCD_PROBE_TLS_CERT and ETCD_PROBE_TLS_KEY: client certificates are asked for over HTTPS only',
    ]);
    expect(errorsOf(resolve({ ETCD_PROBE_TLS_CERT: pki.serverCertFile, ETCD_PROBE_TLS_KEY: pki.clientKeyFile, ETCD_PROBE_TLS_CLIENT_CA: tokenFile }))).toEqual([
      `ETCD_PROBE_TLS_CLIENT_CA: ${tokenFile} holds no PEM certificate`,
      `ETCD_PROBE_TLS_KEY: ${pki.clientKeyFile} does not match the certificate in ${pki.serverCertFile}`,
    ]);
  });

  it('has no listener material without a certificate', () => {
    expect(ok(resolve({})).listenerTls).toBeNull();
  });
});

describe('limits', () => {
  it('bounds the connection limits and the shutdown delay', () => {
    expect(ok(resolve({ ETCD_PROBE_MAX_CONNECTIONS: '20' })).config.maxConnections).toBe(20);
    expect(errorsOf(resolve({ ETCD_PROBE_MAX_CONNECTIONS: '0' }))).toEqual(['ETCD_PROBE_MAX_CONNECTIONS: 0 is out of range (1 to 1000000)']);
    expect(ok(resolve({}, ['--max-connections-per-client=8'])).config.maxConnectionsPerClient).toBe(8);
    expect(errorsOf(resolve({ ETCD_PROBE_MAX_CONNECTIONS_PER_CLIENT: 'many' }))).toEqual(["ETCD_PROBE_MAX_CONNECTIONS_PER_CLIENT: 'many' is not a whole number"]);
    expect(ok(resolve({}, ['--shutdown-delay=5s'])).config.shutdownDelayMs).toBe(5000);
    expect(errorsOf(resolve({ ETCD_PROBE_SHUTDOWN_DELAY: '2m' }))).toEqual(['ETCD_PROBE_SHUTDOWN_DELAY: 2m is out of range (0s to 60s)']);
  });
});
