import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient, { type Client } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedCluster } from '#lab/etcd/shared-cluster.ts';
import type { paths } from '../api-client/openapi-types.ts';
import { eventually } from '../helpers/http.ts';
import { checkResponse, openapi } from '../helpers/openapi.ts';
import { startFleet, type RunningFleet } from '../helpers/start-fleet.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// Other services call etcd-probe through a client generated from openapi.yaml. This file is such a caller:
// test/api-client/openapi-types.ts is generated from openapi.yaml by openapi-typescript (npm run
// docs:api-types; test/docs/openapi-lint.test.ts fails when it is out of date), openapi-fetch makes the
// calls, and every route of the description is called on a running service, single-cluster and fleet,
// against the project's shared real etcd cluster. A route or field the code no longer has fails here:
// at compile time where the test reads it (tsc runs before vitest), at run time where the answer does not
// match its documented schema (each answer is checked against openapi.yaml, headers included).

const shared = SharedCluster.get();
let single: RunningService;
let fleet: RunningFleet;
let dir: string;
const called = new Set<string>();

/** What openapi-fetch returned, as the description checker reads it; records the route as called. */
function seen(template: string, result: { data?: unknown; error?: unknown; response: Response }) {
  called.add(template);
  return {
    status: result.response.status,
    contentType: result.response.headers.get('content-type') ?? '',
    body: result.data ?? result.error,
    headers: result.response.headers,
  };
}

/** A JSON answer of a route that also documents text/plain: the generated type is the union of both. */
function json<T>(body: T): Exclude<T, string | undefined> {
  if (body === undefined || typeof body === 'string') throw new Error(`expected a JSON answer, got ${typeof body}`);
  return body as Exclude<T, string | undefined>;
}

beforeAll(async () => {
  single = await startService({ ...clusterEnv(shared), ETCD_PROBE_CACHE_TTL: '500ms' });
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-api-client-'));
  const file = join(dir, 'clusters.yaml');
  const pki = shared.pki;
  writeFileSync(file, ['clusters:', '  - name: alpha', `    endpoints: [${shared.endpoints}]`, `    cacert: ${pki.caFile}`, `    cert: ${pki.clientCertFile}`, `    key: ${pki.clientKeyFile}`, ''].join('\n'));
  fleet = await startFleet({ ETCD_PROBE_CLUSTERS_FILE: file, ETCD_PROBE_CACHE_TTL: '500ms', ETCD_PROBE_FLEET_REFRESH: '1s' });
});

afterAll(async () => {
  await Promise.all([single?.close(), fleet?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a generated client (openapi-typescript + openapi-fetch), single-cluster service', () => {
  let api: Client<paths>;
  beforeAll(() => {
    api = createClient<paths>({ baseUrl: single.url });
  });

  it('reads the verdict, both policies, JSON and text', async () => {
    const health = await eventually(() => api.GET('/healthz/etcd', { params: { query: { policy: 'strict' } } }), (r) => typeof r.data === 'object' && r.data.status === 'healthy', 20_000);
    expect(checkResponse('GET', '/healthz/etcd', seen('/healthz/etcd', health))).toEqual([]);
    const body = json(health.data);
    if (!('quorum' in body)) throw new Error('expected the full Health (no token file is set)');
    expect([body.policy, body.quorum.voting, body.quorum.required, body.reasons.length]).toEqual(['strict', 3, 2, 0]);
    const verbose = await api.GET('/healthz/etcd', { params: { query: { verbose: 'true' } }, parseAs: 'text' });
    expect(checkResponse('GET', '/healthz/etcd', seen('/healthz/etcd', verbose))).toEqual([]);
    expect(verbose.data).toMatch(/healthz check passed\n$/);
  });

  it("reads one member's fitness, as a load balancer's check does", async () => {
    const name = shared.members[0]!.name;
    const fit = await api.GET('/healthz/etcd/members/{idOrName}', { params: { path: { idOrName: name } } });
    expect(checkResponse('GET', '/healthz/etcd/members/{idOrName}', seen('/healthz/etcd/members/{idOrName}', fit))).toEqual([]);
    const body = json(fit.data);
    if (!('member' in body)) throw new Error('expected the full MemberFitness (no token file is set)');
    expect([fit.response.status, body.fit, body.member.name, body.policy]).toEqual([200, true, name, 'quorum']);
    const missing = await api.GET('/healthz/etcd/members/{idOrName}', { params: { path: { idOrName: 'no-such-member' } } });
    expect(checkResponse('GET', '/healthz/etcd/members/{idOrName}', seen('/healthz/etcd/members/{idOrName}', missing))).toEqual([]);
    expect(missing.response.status).toBe(404);
  });

  it('lists members and reads one by name and by ID', async () => {
    const list = await api.GET('/members');
    expect(checkResponse('GET', '/members', seen('/members', list))).toEqual([]);
    const members = list.data?.members ?? [];
    expect(members.map((m) => m.name).sort()).toEqual(shared.members.map((m) => m.name).sort());
    const first = members[0]!;
    for (const idOrName of [first.name, first.id]) {
      const one = await api.GET('/members/{idOrName}', { params: { path: { idOrName } } });
      expect(checkResponse('GET', '/members/{idOrName}', seen('/members/{idOrName}', one))).toEqual([]);
      expect([one.data?.id, one.data?.reachable]).toEqual([first.id, true]);
    }
    const missing = await api.GET('/members/{idOrName}', { params: { path: { idOrName: 'no-such-member' } } });
    expect(checkResponse('GET', '/members/{idOrName}', seen('/members/{idOrName}', missing))).toEqual([]);
    expect([missing.response.status, json(missing.error).error]).toEqual([404, 'MEMBER_NOT_FOUND']);
  });

  it('reads alarms, history and the disruption budget', async () => {
    const alarms = await api.GET('/alarms');
    expect(checkResponse('GET', '/alarms', seen('/alarms', alarms))).toEqual([]);
    expect(alarms.data && 'alarms' in alarms.data ? alarms.data.alarms : null).toEqual([]);
    const history = await api.GET('/history');
    expect(checkResponse('GET', '/history', seen('/history', history))).toEqual([]);
    expect(history.data?.rounds).toBeGreaterThan(0);
    const budget = await api.GET('/disruption');
    expect(checkResponse('GET', '/disruption', seen('/disruption', budget))).toEqual([]);
    expect(budget.data?.disruptionsAllowed).toBe(1);
    const name = shared.members[1]!.name;
    const may = await api.GET('/disruption/{member}', { params: { path: { member: name }, query: { action: 'remove' } } });
    expect(checkResponse('GET', '/disruption/{member}', seen('/disruption/{member}', may))).toEqual([]);
    expect(may.response.status).toBe(200);
  });

  it('reads the service routes, the page and the metrics as text', async () => {
    for (const path of ['/livez', '/readyz'] as const) {
      const answer = await api.GET(path);
      expect(checkResponse('GET', path, seen(path, answer))).toEqual([]);
      expect(answer.data?.status).toBe('ok');
    }
    for (const path of ['/metrics', '/openapi.yaml', '/', '/status/fragment'] as const) {
      const answer = await api.GET(path, { parseAs: 'text' });
      expect(checkResponse('GET', path, seen(path, answer))).toEqual([]);
      expect(answer.response.status).toBe(200);
    }
  });
});

describe('a generated client, fleet mode from a clusters file', () => {
  let api: Client<paths>;
  const cluster = { cluster: 'alpha' };
  beforeAll(() => {
    api = createClient<paths>({ baseUrl: fleet.url });
  });

  it('lists the fleet and reads every cluster route', async () => {
    const list = await eventually(() => api.GET('/clusters'), (r) => r.data?.clusters.every((c) => c.state === 'probed') === true, 20_000);
    expect(checkResponse('GET', '/clusters', seen('/clusters', list))).toEqual([]);
    expect(list.data?.clusters.map((c) => [c.name, c.status])).toEqual([['alpha', 'healthy']]);

    const health = await api.GET('/clusters/{cluster}/healthz/etcd', { params: { path: cluster } });
    expect(checkResponse('GET', '/clusters/{cluster}/healthz/etcd', seen('/clusters/{cluster}/healthz/etcd', health))).toEqual([]);
    expect(json(health.data).status).toBe('healthy');
    const members = await api.GET('/clusters/{cluster}/members', { params: { path: cluster } });
    const fit = await api.GET('/clusters/{cluster}/healthz/etcd/members/{idOrName}', { params: { path: { ...cluster, idOrName: shared.members[1]!.name }, query: { policy: 'strict' } } });
    expect(checkResponse('GET', '/clusters/{cluster}/healthz/etcd/members/{idOrName}', seen('/clusters/{cluster}/healthz/etcd/members/{idOrName}', fit))).toEqual([]);
    expect([fit.response.status, json(fit.data).fit]).toEqual([200, true]);
    expect(checkResponse('GET', '/clusters/{cluster}/members', seen('/clusters/{cluster}/members', members))).toEqual([]);
    const name = members.data?.members[0]?.name ?? '';
    const one = await api.GET('/clusters/{cluster}/members/{idOrName}', { params: { path: { ...cluster, idOrName: name } } });
    expect(checkResponse('GET', '/clusters/{cluster}/members/{idOrName}', seen('/clusters/{cluster}/members/{idOrName}', one))).toEqual([]);
    expect(one.data?.name).toBe(name);
    const alarms = await api.GET('/clusters/{cluster}/alarms', { params: { path: cluster } });
    expect(checkResponse('GET', '/clusters/{cluster}/alarms', seen('/clusters/{cluster}/alarms', alarms))).toEqual([]);
    const history = await api.GET('/clusters/{cluster}/history', { params: { path: cluster } });
    expect(checkResponse('GET', '/clusters/{cluster}/history', seen('/clusters/{cluster}/history', history))).toEqual([]);
    const budget = await api.GET('/clusters/{cluster}/disruption', { params: { path: cluster } });
    expect(checkResponse('GET', '/clusters/{cluster}/disruption', seen('/clusters/{cluster}/disruption', budget))).toEqual([]);
    expect(budget.data?.disruptionsAllowed).toBe(1);
    const may = await api.GET('/clusters/{cluster}/disruption/{member}', { params: { path: { ...cluster, member: name } } });
    expect(checkResponse('GET', '/clusters/{cluster}/disruption/{member}', seen('/clusters/{cluster}/disruption/{member}', may))).toEqual([]);
    for (const path of ['/clusters/{cluster}/', '/clusters/{cluster}/status/fragment'] as const) {
      const page = await api.GET(path, { params: { path: cluster }, parseAs: 'text' });
      expect(checkResponse('GET', path, seen(path, page))).toEqual([]);
      expect(page.response.status).toBe(200);
    }
    const unknown = await api.GET('/clusters/{cluster}/healthz/etcd', { params: { path: { cluster: 'no-such-cluster' } } });
    expect(checkResponse('GET', '/clusters/{cluster}/healthz/etcd', seen('/clusters/{cluster}/healthz/etcd', unknown))).toEqual([]);
    expect(unknown.response.status).toBe(404);
  });

  it('has called every route the description lists', () => {
    expect([...called].sort()).toEqual(Object.keys(openapi.paths).sort());
  });
});
