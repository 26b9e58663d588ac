import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issue, makeCa, type PemPair, type TestCa } from '../fixtures/certs.ts';
import { SharedCluster } from '../fixtures/shared-cluster.ts';
import { clientCertExpiries, notAfterSeconds } from '../helpers/client-cert-expiry.ts';
import { eventually, get } from '../helpers/http.ts';
import { httpsGet } from '../helpers/https.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { clusterEnv, startService } from '../helpers/start-service.ts';

// The listener against a real TLS cluster: the bearer token, HTTPS and mTLS, and certificate files
// (the listener's and etcd's client credentials) rewritten on disk while the service runs.

// The project's shared cluster: this file only reads it.
const cluster = SharedCluster.get();
let dir: string;
let listenerCa: TestCa;
let otherCa: TestCa;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-listener-'));
  listenerCa = await makeCa('listener CA');
  otherCa = await makeCa('unrelated CA');
});

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function writePair(pair: PemPair, certFile: string, keyFile: string): void {
  // Written beside and renamed over, as an atomic writer does; each file is swapped whole.
  writeFileSync(`${certFile}.tmp`, pair.cert);
  writeFileSync(`${keyFile}.tmp`, pair.key, { mode: 0o600 });
  renameSync(`${keyFile}.tmp`, keyFile);
  renameSync(`${certFile}.tmp`, certFile);
}

async function metric(service: { app: { metrics: { registry: { metrics(): Promise<string> } } } }, line: RegExp): Promise<number> {
  const text = await service.app.metrics.registry.metrics();
  const match = text.split('\n').find((l) => line.test(l));
  return match ? Number(match.split(' ').pop()) : 0;
}

describe('the bearer token, against real etcd', () => {
  it('guards /members (401 without, 401 wrong, 200 right), leaves /healthz/etcd open, and follows a rotated token file', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'first-token\n');
    const service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_AUTH_TOKEN_FILE: tokenFile, ETCD_PROBE_TIMEOUT: '1s' }, { reloadIntervalMs: 100 });
    try {
      const without = await get(`${service.url}/members`);
      expect(without.status).toBe(401);
      expect(without.headers.get('www-authenticate')).toBe('Bearer realm="etcd-probe"');
      expect(without.body).toEqual({ error: 'UNAUTHORIZED', message: 'this route needs a bearer token (Authorization: Bearer <token>)' });
      expect(checkResponse('GET', '/members', without)).toEqual([]);

      const wrong = await get(`${service.url}/members`, { headers: { authorization: 'Bearer second-token' } });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="etcd-probe", error="invalid_token"');

      const right = await get(`${service.url}/members`, { headers: { authorization: 'Bearer first-token' } });
      expect(right.status).toBe(200);
      expect(right.body.members).toHaveLength(3);
      expect(checkResponse('GET', '/members', right)).toEqual([]);

      // Open to a load balancer, but only the summary without the token.
      const summary = await get(`${service.url}/healthz/etcd`);
      expect(summary.status).toBe(200);
      expect(summary.body).toEqual({ status: 'healthy', policy: 'quorum', reasons: [] });
      expect(checkResponse('GET', '/healthz/etcd', summary)).toEqual([]);
      expect((await get(`${service.url}/alarms`)).status).toBe(401);
      expect((await get(`${service.url}/`)).status).toBe(401);
      expect((await get(`${service.url}/metrics`)).status).toBe(401);
      expect((await get(`${service.url}/metrics`, { headers: { authorization: 'Bearer first-token' } })).status).toBe(200);

      // The Secret is rotated: the new token works within the reload interval, the old one no longer.
      writeFileSync(`${tokenFile}.tmp`, 'second-token\n');
      renameSync(`${tokenFile}.tmp`, tokenFile);
      const rotated = await eventually(
        () => get(`${service.url}/members`, { headers: { authorization: 'Bearer second-token' } }),
        (g) => g.status === 200,
        5000,
      );
      expect(rotated.status).toBe(200);
      expect((await get(`${service.url}/members`, { headers: { authorization: 'Bearer first-token' } })).status).toBe(401);

      // An emptied file (a revoked Secret) fails closed: no token is accepted, one error line and a count say so.
      writeFileSync(tokenFile, '');
      await eventually(async () => service.logs.at('error').length, (n) => n > 0, 5000);
      const [line] = service.logs.at('error');
      expect(line).toMatchObject({ credentials: 'auth-token', file: tokenFile, setting: 'ETCD_PROBE_AUTH_TOKEN_FILE' });
      expect(line?.msg).toBe(`cannot reload the bearer token: ETCD_PROBE_AUTH_TOKEN_FILE: ${tokenFile} is empty (it must hold the bearer token); no bearer token is accepted until the file is fixed`);
      expect((await get(`${service.url}/members`, { headers: { authorization: 'Bearer second-token' } })).status).toBe(401);
      expect(await metric(service, new RegExp(`^etcd_probe_credential_reload_errors_total\\{file="${tokenFile}"\\}`))).toBe(1);
      expect(await metric(service, /^etcd_probe_auth_token_usable /)).toBe(0);
      // Fixed: the token works again.
      writeFileSync(tokenFile, 'second-token\n');
      expect((await eventually(() => get(`${service.url}/members`, { headers: { authorization: 'Bearer second-token' } }), (g) => g.status === 200, 5000)).status).toBe(200);
      expect(service.logs.raw).not.toContain('first-token');
      expect(service.logs.raw).not.toContain('second-token');
    } finally {
      await service.close();
    }
  });
});

describe('HTTPS on the listener', () => {
  it('serves HTTPS with HSTS; with a client CA, /livez and /readyz need no certificate and every other route one from that CA', async () => {
    const server = await issue(listenerCa, { commonName: 'listener', server: true, ips: ['127.0.0.1'] });
    const client = await issue(listenerCa, { commonName: 'monitor', client: true });
    const stranger = await issue(otherCa, { commonName: 'stranger', client: true });
    const certFile = join(dir, 'mtls.crt');
    const keyFile = join(dir, 'mtls.key');
    const caFile = join(dir, 'mtls-ca.crt');
    writePair(server, certFile, keyFile);
    writeFileSync(caFile, listenerCa.cert);
    const service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_TLS_CERT: certFile, ETCD_PROBE_TLS_KEY: keyFile, ETCD_PROBE_TLS_CLIENT_CA: caFile });
    try {
      expect(service.url.startsWith('https://')).toBe(true);
      const ok = await httpsGet(`${service.url}/healthz/etcd`, { ca: listenerCa.cert, cert: client.cert, key: client.key });
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe('healthy');
      expect(checkResponse('GET', '/healthz/etcd', ok)).toEqual([]);
      expect(ok.peer.subject.CN).toBe('listener');
      expect(ok.headers['strict-transport-security']).toBe('max-age=31536000');
      expect(ok.headers['cache-control']).toMatch(/^private, max-age=\d+, stale-while-revalidate=\d+$/);

      // The kubelet's httpGet probes present no certificate: they are answered.
      for (const route of ['/livez', '/readyz']) {
        const probe = await httpsGet(`${service.url}${route}`, { ca: listenerCa.cert });
        expect(probe.status, route).toBe(200);
        expect(checkResponse('GET', route, probe)).toEqual([]);
      }
      // Everything else needs a certificate from the client CA: none, or one from another CA, is 401.
      for (const route of ['/healthz/etcd', '/members', '/metrics', '/', '/openapi.yaml', '/no-such-route']) {
        const none = await httpsGet(`${service.url}${route}`, { ca: listenerCa.cert });
        expect(none.status, route).toBe(401);
        expect(none.body).toEqual({ error: 'UNAUTHORIZED', message: 'this route needs a client certificate signed by the CA this service trusts for clients (mTLS): no client certificate was presented' });
        expect(none.headers['x-content-type-options']).toBe('nosniff');
        const foreign = await httpsGet(`${service.url}${route}`, { ca: listenerCa.cert, cert: stranger.cert, key: stranger.key });
        expect(foreign.status, route).toBe(401);
        expect(foreign.body.message).toMatch(/^this route needs a client certificate .*: the client certificate was not accepted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/);
      }
      expect(checkResponse('GET', '/members', await httpsGet(`${service.url}/members`, { ca: listenerCa.cert }))).toEqual([]);
      expect((await httpsGet(`${service.url}/members`, { ca: listenerCa.cert, cert: client.cert, key: client.key })).status).toBe(200);
      // Plain HTTP to the HTTPS port gets no answer from a route.
      await expect(get(`${service.url.replace('https:', 'http:')}/healthz/etcd`)).rejects.toThrow();
    } finally {
      await service.close();
    }
  });

  it('presents a rotated serving certificate to new connections, and keeps the old one when the new file is broken', async () => {
    const first = await issue(listenerCa, { commonName: 'listener-first', server: true, ips: ['127.0.0.1'] });
    const second = await issue(listenerCa, { commonName: 'listener-second', server: true, ips: ['127.0.0.1'] });
    const certFile = join(dir, 'rotate.crt');
    const keyFile = join(dir, 'rotate.key');
    writePair(first, certFile, keyFile);
    const service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_TLS_CERT: certFile, ETCD_PROBE_TLS_KEY: keyFile }, { reloadIntervalMs: 100 });
    try {
      expect((await httpsGet(`${service.url}/livez`, { ca: listenerCa.cert })).peer.subject.CN).toBe('listener-first');
      writePair(second, certFile, keyFile);
      const seen = await eventually(() => httpsGet(`${service.url}/livez`, { ca: listenerCa.cert }), (g) => g.peer.subject.CN === 'listener-second', 5000);
      expect(seen.peer.subject.CN).toBe('listener-second');
      expect(seen.status).toBe(200);
      expect(service.logs.lines.some((l) => l.msg === "reloaded the listener's certificate" && l.credentials === 'listener')).toBe(true);
      expect(await metric(service, /^etcd_probe_credential_reloads_total\{credentials="listener"\}/)).toBe(1);

      writeFileSync(certFile, '-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n');
      await eventually(async () => service.logs.at('error').length, (n) => n > 0, 5000);
      const [line] = service.logs.at('error');
      expect(line).toMatchObject({ credentials: 'listener', file: certFile, setting: 'ETCD_PROBE_TLS_CERT' });
      expect(line?.msg).toMatch(/^cannot reload the listener's certificate: ETCD_PROBE_TLS_CERT: .* holds a certificate that cannot be parsed; keeping the previous one$/);
      const after = await httpsGet(`${service.url}/livez`, { ca: listenerCa.cert });
      expect(after.status).toBe(200);
      expect(after.peer.subject.CN).toBe('listener-second');
      expect(await metric(service, new RegExp(`^etcd_probe_credential_reload_errors_total\\{file="${certFile}"\\}`))).toBe(1);
      expect(service.logs.raw).not.toContain('PRIVATE KEY');
    } finally {
      await service.close();
    }
  });
});

describe("etcd's client credentials rewritten on disk", () => {
  it('the next round uses new files: a certificate etcd rejects, then the right one again; a broken file keeps the old ones', async () => {
    const pki = cluster.pki!;
    const certFile = join(dir, 'etcd-client.crt');
    const keyFile = join(dir, 'etcd-client.key');
    copyFileSync(pki.clientCertFile, certFile);
    copyFileSync(pki.clientKeyFile, keyFile);
    const env = { ETCD_PROBE_ENDPOINTS: cluster.endpoints, ETCD_PROBE_CACERT: pki.caFile, ETCD_PROBE_CERT: certFile, ETCD_PROBE_KEY: keyFile, ETCD_PROBE_CACHE_TTL: '0s', ETCD_PROBE_TIMEOUT: '1s' };
    const service = await startService(env);
    try {
      expect((await get(`${service.url}/members`)).status).toBe(200);
      expect(service.app.prober.openClients).toBe(3);
      const expiries = async () => clientCertExpiries((await get(`${service.url}/metrics`)).text);
      expect(await expiries()).toEqual({ '': notAfterSeconds(readFileSync(pki.clientCertFile)) });

      // A client certificate from a CA etcd does not trust: the very next round is rejected by every member.
      const foreign = await issue(otherCa, { commonName: 'etcd-probe', client: true, notAfter: new Date(Date.now() + 7 * 24 * 3_600_000) });
      writePair(foreign, certFile, keyFile);
      const rejected = await get(`${service.url}/members`);
      expect(rejected.status).toBe(503);
      expect(rejected.body.endpoints.map((e: { error: { code: string } }) => e.error.code)).toEqual(['TLS_CLIENT_REJECTED', 'TLS_CLIENT_REJECTED', 'TLS_CLIENT_REJECTED']);
      expect(await metric(service, /^etcd_probe_credential_reloads_total\{credentials="etcd-client"\}/)).toBe(1);
      // The expiry exported is the certificate in use: the new file's.
      expect(await expiries()).toEqual({ '': notAfterSeconds(foreign.cert) });

      // The right certificate again: healthy on the next round, with no more clients than targets.
      copyFileSync(pki.clientCertFile, `${certFile}.tmp`);
      copyFileSync(pki.clientKeyFile, `${keyFile}.tmp`);
      renameSync(`${keyFile}.tmp`, keyFile);
      renameSync(`${certFile}.tmp`, certFile);
      const healed = await get(`${service.url}/healthz/etcd`);
      expect(healed.status).toBe(200);
      expect(healed.body.status).toBe('healthy');
      expect(service.app.prober.openClients).toBe(3);
      expect(await metric(service, /^etcd_probe_credential_reloads_total\{credentials="etcd-client"\}/)).toBe(2);

      // A broken key: the previous credentials stay in use, one error line names the file, and it is counted.
      writeFileSync(keyFile, 'garbage');
      for (let i = 0; i < 3; i++) {
        const still = await get(`${service.url}/healthz/etcd`);
        expect(still.status).toBe(200);
        expect(still.body.status).toBe('healthy');
      }
      const errors = service.logs.at('error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ credentials: 'etcd-client', file: keyFile, setting: 'ETCD_PROBE_KEY' });
      expect(errors[0]?.msg).toBe(
        `cannot reload the etcd client certificate: ETCD_PROBE_KEY: ${keyFile} holds no usable PEM private key (encrypted keys are not supported); keeping the previous one`,
      );
      expect(await metric(service, new RegExp(`^etcd_probe_credential_reload_errors_total\\{file="${keyFile}"\\}`))).toBe(1);
      expect(await expiries()).toEqual({ '': notAfterSeconds(readFileSync(pki.clientCertFile)) });
      expect(service.logs.raw).not.toContain('PRIVATE KEY');
    } finally {
      await service.close();
    }
  });
});
