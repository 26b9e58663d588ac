import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// Members are found from the member list, like `etcdctl --cluster`; and a learner joins for real.

let cluster: EtcdCluster;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
});

afterAll(async () => {
  await cluster?.stop();
});

describe('discovery from the member list', () => {
  it('one configured endpoint is enough: every advertised client URL is probed', async () => {
    const service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_ENDPOINTS: cluster.member(0).clientUrl, ETCD_PROBE_CACHE_TTL: '0s' });
    try {
      const health = await get(`${service.url}/healthz/etcd`);
      expect(health.body.status).toBe('healthy');
      expect(health.body.quorum.healthyVoting).toBe(3);
      const members = await get(`${service.url}/members`);
      expect(checkResponse('GET', '/members', members)).toEqual([]);
      expect(members.body.endpoints.map((e: { origin: string }) => e.origin).sort()).toEqual(['configured', 'discovered', 'discovered']);
      for (const m of members.body.members) expect(m.endpoint).toBe(m.clientURLs[0]);
      // Later rounds probe the known members at once; still three endpoints, no duplicates.
      const again = await get(`${service.url}/members`);
      expect(again.body.endpoints).toHaveLength(3);
      expect(service.app.prober.openClients).toBe(3);
    } finally {
      await service.close();
    }
  });

  it('without discovery the members no endpoint reaches are unknown: MEMBER_NOT_PROBED', async () => {
    const service = await startService({
      ...clusterEnv(cluster),
      ETCD_PROBE_ENDPOINTS: cluster.member(0).clientUrl,
      ETCD_PROBE_DISCOVER: 'false',
      ETCD_PROBE_CACHE_TTL: '0s',
    });
    try {
      const health = await get(`${service.url}/healthz/etcd`);
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('degraded');
      expect(health.body.reasons.map((r: { code: string }) => r.code)).toEqual(['QUORUM_MARGIN_UNKNOWN', 'MEMBER_NOT_PROBED', 'MEMBER_NOT_PROBED']);
      expect(health.body.quorum).toMatchObject({ voting: 3, healthyVoting: 1, confirmed: true, faultTolerance: 0 });
    } finally {
      await service.close();
    }
  });
});

describe('a learner', () => {
  it('is listed as a learner, its rejected linearizable read is not held against it', async () => {
    const learner = await cluster.addLearner();
    const service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_CACHE_TTL: '0s' });
    try {
      const health = await get(`${service.url}/healthz/etcd`);
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('healthy');
      expect(health.body.reasons.map((r: { code: string }) => r.code)).toEqual(['LEARNER_PRESENT']);
      expect(health.body.quorum).toMatchObject({ members: 4, voting: 3, required: 2, healthyVoting: 3, faultTolerance: 1 });
      const member = await get(`${service.url}/members/${learner.name}`);
      expect(member.body).toMatchObject({ isLearner: true, reachable: true, healthy: true, error: null });
    } finally {
      await service.close();
    }
  });
});
