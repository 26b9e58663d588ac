import { describe, expect, it } from 'vitest';
import { SharedCluster } from '../fixtures/shared-cluster.ts';
import { get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { clusterEnv, startService } from '../helpers/start-service.ts';

// TLS misconfiguration against a real cluster that requires client certificates: each member reports
// a clear TLS error, the verdict is unhealthy, and the service keeps serving.

// The project's shared cluster: this file only reads it.
const cluster = SharedCluster.get();

describe('TLS errors', () => {
  it('a wrong CA: every member untrusted, NO_MEMBER_REACHABLE, no crash', async () => {
    const pki = cluster.pki!;
    const service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_CACERT: pki.otherCaFile, ETCD_PROBE_TIMEOUT: '1s' });
    try {
      const health = await get(`${service.url}/healthz/etcd`);
      expect(health.status).toBe(503);
      expect(checkResponse('GET', '/healthz/etcd', health)).toEqual([]);
      expect(health.body.reasons.map((r: { code: string }) => r.code)).toEqual(['NO_MEMBER_REACHABLE']);
      expect(health.body.reasons[0].message).toMatch(/not signed by the configured CA/);

      const members = await get(`${service.url}/members`);
      expect(members.status).toBe(503);
      expect(checkResponse('GET', '/members', members)).toEqual([]);
      expect(members.body.error).toBe('NO_MEMBER_REACHABLE');
      expect(members.body.endpoints).toHaveLength(3);
      for (const e of members.body.endpoints) {
        expect(e.error.code).toBe('TLS_UNTRUSTED_SERVER');
        expect(e.error.message).toBe("TLS: etcd's serving certificate is not signed by the configured CA (unknown authority)");
      }
      const alarms = await get(`${service.url}/alarms`);
      expect(alarms.status).toBe(503);
      expect(alarms.body.error).toBe('ALARMS_UNKNOWN');
      expect(checkResponse('GET', '/alarms', alarms)).toEqual([]);
      // Still alive and serving.
      expect((await get(`${service.url}/livez`)).status).toBe(200);
      expect((await get(`${service.url}/readyz`)).status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it('no client certificate configured: the error says none is configured, not that one was rejected (issue 26)', async () => {
    const pki = cluster.pki!;
    const service = await startService({ ETCD_PROBE_ENDPOINTS: cluster.endpoints, ETCD_PROBE_CACERT: pki.caFile, ETCD_PROBE_TIMEOUT: '1s' });
    try {
      const members = await get(`${service.url}/members`);
      expect(members.status).toBe(503);
      for (const e of members.body.endpoints) {
        expect(e.error.code).toBe('TLS_CLIENT_REJECTED');
        expect(e.error.message).toMatch(/^TLS: etcd asks for a client certificate \(--client-cert-auth\) and none is configured \(.+\): set ETCD_PROBE_CERT and ETCD_PROBE_KEY/);
        expect(e.error.message).not.toMatch(/rejected the client certificate/);
      }
    } finally {
      await service.close();
    }
  });

  it('http:// against a TLS port fails clearly, within the deadline', async () => {
    const endpoints = cluster.members.map((m) => m.clientUrl.replace('https:', 'http:')).join(',');
    const service = await startService({ ETCD_PROBE_ENDPOINTS: endpoints, ETCD_PROBE_TIMEOUT: '1s' });
    try {
      const members = await get(`${service.url}/members`);
      expect(members.status).toBe(503);
      expect(members.ms).toBeLessThan(1500);
      for (const e of members.body.endpoints) expect(e.reachable).toBe(false);
    } finally {
      await service.close();
    }
  });

  it('never logs key material', async () => {
    const service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_LOG_LEVEL: 'trace' });
    try {
      await get(`${service.url}/healthz/etcd`);
      await get(`${service.url}/members`);
      const { readFileSync } = await import('node:fs');
      const key = readFileSync(cluster.pki!.clientKeyFile, 'utf8');
      const body = key.split('\n')[1] as string;
      expect(service.logs.lines.length).toBeGreaterThan(0);
      expect(service.logs.raw).not.toContain(body);
      expect(service.logs.raw).not.toContain('PRIVATE KEY');
    } finally {
      await service.close();
    }
  });
});
