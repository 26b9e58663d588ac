import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// NOSPACE raised for real: a cluster with a tiny --quota-backend-bytes is filled by the test's own
// client until etcd refuses writes. `etcdctl endpoint health` on 3.4 still calls such a cluster healthy.

const QUOTA = 8 * 2 ** 20;
let cluster: EtcdCluster;
let service: RunningService;

async function fill(): Promise<string> {
  const client = cluster.client(0);
  const value = Buffer.alloc(512 * 1024, 'x');
  try {
    for (let i = 0; i < 200; i++) await client.put(`fill/${i}`).value(value);
  } catch (error) {
    return (error as Error).message;
  } finally {
    client.close();
  }
  throw new Error('etcd accepted 100 MiB under an 8 MiB quota');
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3, quotaBackendBytes: QUOTA });
  expect(await fill()).toMatch(/database space exceeded/);
  service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_CACHE_TTL: '0s', ETCD_PROBE_QUOTA_BYTES: String(QUOTA) });
});

afterAll(async () => {
  await service?.close();
  await cluster?.stop();
});

describe('a cluster out of space', () => {
  it('is unhealthy with ALARM_NOSPACE and the hint to compact, defragment and disarm', async () => {
    const got = await get(`${service.url}/healthz/etcd`);
    expect(got.status).toBe(503);
    expect(checkResponse('GET', '/healthz/etcd', got)).toEqual([]);
    expect(got.body.status).toBe('unhealthy');
    const nospace = got.body.reasons.filter((r: { code: string }) => r.code === 'ALARM_NOSPACE');
    expect(nospace.length).toBeGreaterThanOrEqual(1);
    expect(nospace[0].message).toMatch(/raised NOSPACE.*from the alarm list/);
    expect(nospace[0].hint).toMatch(/compact.*defragment every member.*alarm disarm/i);
    // The quota is reached: ALARM_NOSPACE says so, and no member's DB_QUOTA_HIGH forecasts it as "imminent" (issue 26).
    expect(got.body.reasons.map((r: { code: string }) => r.code)).not.toContain('DB_QUOTA_HIGH');
    // Quorum itself is fine: reads pass, only writes are refused.
    expect(got.body.quorum.healthyVoting).toBe(3);
  });

  it('lists the alarm in /alarms, read from the alarm list', async () => {
    const got = await get(`${service.url}/alarms`);
    expect(got.status).toBe(200);
    expect(checkResponse('GET', '/alarms', got)).toEqual([]);
    expect(got.body.source).toBe('alarm-list');
    expect(got.body.alarms.length).toBeGreaterThanOrEqual(1);
    for (const alarm of got.body.alarms) {
      expect(alarm.alarm).toBe('NOSPACE');
      expect(alarm.memberName).toMatch(/^m[123]$/);
      expect(alarm.memberId).toMatch(/^[0-9a-f]+$/);
    }
    const members = await get(`${service.url}/members`);
    const alarmed = members.body.members.filter((m: { alarms: string[] }) => m.alarms.includes('NOSPACE'));
    expect(alarmed.map((m: { id: string }) => m.id).sort()).toEqual(got.body.alarms.map((a: { memberId: string }) => a.memberId).sort());
  });

  it('leaves the alarm in place: the probe only reads (still raised after more rounds)', async () => {
    for (let i = 0; i < 3; i++) await get(`${service.url}/healthz/etcd`);
    const got = await get(`${service.url}/alarms`);
    expect(got.body.alarms.length).toBeGreaterThanOrEqual(1);
    expect(await fill()).toMatch(/database space exceeded/);
  });

  it('exports the alarm as a metric', async () => {
    const metrics = await get(`${service.url}/metrics`);
    expect(metrics.text).toMatch(/^etcd_probe_alarm_active\{member="m[123]",alarm="NOSPACE"\} 1$/m);
    expect(metrics.text).toMatch(/^etcd_probe_reason_active\{code="ALARM_NOSPACE",severity="unhealthy"\} [1-3]$/m);
  });
});
