import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { buildProbeCore } from '../../src/core/probe-core.ts';
import type { ClusterEntry } from '../../src/fleet/cluster-entry.ts';
import { owns } from '../../src/fleet/shard.ts';
import { buildFleetApp, type FleetApp } from '../../src/fleet-app.ts';
import { createLogger } from '../../src/log/logger.ts';
import { eventually } from '../helpers/http.ts';
import { LogSink } from '../helpers/log-sink.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { testTempDir } from '../helpers/temp-dir.ts';
import { round, three } from '../probe/observation-builders.ts';

// Issue 25, hole 5: without the token, /clusters/{c}/healthz/etcd on a replica built the cluster's prober,
// ran rounds and kept them open; 404 vs 503 vs 200 told anyone whether a cluster existed and whether it was
// paused. Now a caller without the token gets a round this replica already holds, or one uniform answer
// that starts nothing. Rounds run over scripted sources (the fleet's wiring is what is tested here).

const TOKEN = 'fleet-token.9';
let app: FleetApp | undefined;

afterEach(async () => {
  await app?.server.close();
  app = undefined;
});

/** Names of clusters that shard 0/2 owns and does not own. */
function names(): { owned: string; other: string } {
  const candidates = Array.from({ length: 20 }, (_, i) => `team/c${i}`);
  const shard = { index: 0, count: 2 };
  return { owned: candidates.find((n) => owns(shard, n)) as string, other: candidates.find((n) => !owns(shard, n)) as string };
}

async function build(rounds: Map<string, number>) {
  const token = join(testTempDir('etcd-probe-anon-'), 'token');
  writeFileSync(token, `${TOKEN}\n`);
  const env = {
    ETCD_PROBE_CAPI_CLUSTER: '*',
    ETCD_PROBE_MANAGEMENT_KUBECONFIG: '/dev/null',
    ETCD_PROBE_AUTH_TOKEN_FILE: token,
    ETCD_PROBE_SHARD: '0/2',
    ETCD_PROBE_CACHE_TTL: '100ms',
    ETCD_PROBE_TIMEOUT: '100ms',
    ETCD_PROBE_FLEET_REFRESH: '1s',
  };
  const result = loadConfig({ env, argv: [], now: new Date() });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join());
  const entry = (name: string, waiting: string | null = null): ClusterEntry => ({ name, config: result.config, tls: { ca: null, cert: null, key: null }, inCluster: null, waiting, revision: '1' });
  const { owned, other } = names();
  app = await buildFleetApp({
    config: result.config,
    logger: createLogger('warn', new LogSink()),
    source: { kind: 'file', entries: [entry(owned), entry(other), entry('team/paused', 'paused')] },
    auth: result.auth,
    buildCore: async (e, now) => {
      const core = await buildProbeCore({ config: e.config, tls: e.tls, now, source: { ...scriptedSource(round(three()).endpoints), close: async () => {} } });
      const roundOf = core.prober.round.bind(core.prober);
      core.prober.round = () => {
        rounds.set(e.name, (rounds.get(e.name) ?? 0) + 1);
        return roundOf();
      };
      return core;
    },
  });
  return { app, owned, other };
}

async function get(fleet: FleetApp, url: string, withToken = false) {
  const res = await fleet.server.inject({ method: 'GET', url, headers: withToken ? { authorization: `Bearer ${TOKEN}` } : {} });
  const contentType = String(res.headers['content-type'] ?? '');
  return { status: res.statusCode, contentType, body: contentType.startsWith('application/json') ? res.json() : res.body, headers: res.headers };
}

const healthz = (name: string) => `/clusters/${encodeURIComponent(name)}/healthz/etcd`;

describe('a fleet replica and a caller without the token', () => {
  it('answers from a round it holds, and gives one uniform answer, starting nothing, for a cluster it does not own, one paused, and one that does not exist', async () => {
    const rounds = new Map<string, number>();
    const { app: fleet, owned, other } = await build(rounds);
    // The owned cluster is probed by the replica's own refresh.
    const held = await eventually(() => get(fleet, healthz(owned)), (r) => r.status === 200, 10_000, 50);
    expect(held.body).toEqual({ status: 'healthy', policy: 'quorum', reasons: [] });

    const answers = await Promise.all([other, 'team/paused', 'team/nowhere'].map((name) => get(fleet, healthz(name))));
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ error: 'VERDICT_UNAVAILABLE', message: 'no verdict can be given without the token now: ask with the token' });
      expect(checkResponse('GET', '/clusters/{cluster}/healthz/etcd', answer)).toEqual([]);
      expect([answer.headers['cache-control'], answer.headers['content-type']]).toEqual([answers[0]?.headers['cache-control'], answers[0]?.headers['content-type']]);
    }
    // Nothing was started for the cluster it does not own: no prober built, no round run.
    expect(rounds.get(other) ?? 0).toBe(0);
    expect(fleet.fleet.slot(other)?.open).toBe(false);
  });

  it('with the token the same requests tell what they are; the round a token holder started then answers without it, until it is older than the refresh plus a deadline', async () => {
    const rounds = new Map<string, number>();
    const { app: fleet, other } = await build(rounds);
    expect((await get(fleet, healthz('team/nowhere'), true)).body.error).toBe('CLUSTER_NOT_FOUND');
    expect((await get(fleet, healthz('team/paused'), true)).body.error).toBe('CLUSTER_NOT_PROBED');
    expect((await get(fleet, healthz(other), true)).status).toBe(200);
    expect(rounds.get(other)).toBe(1);
    expect((await get(fleet, healthz(other))).body).toEqual({ status: 'healthy', policy: 'quorum', reasons: [] });
    // 1 s refresh + 100 ms deadline: then the held round is too old to be given, and none is started.
    const expired = await eventually(() => get(fleet, healthz(other)), (r) => r.status === 503, 5_000, 100);
    expect(expired.body.error).toBe('VERDICT_UNAVAILABLE');
    expect(rounds.get(other)).toBe(1);
  });
});
