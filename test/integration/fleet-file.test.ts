import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/fleet/shard.ts';
import { EtcdCluster } from '../fixtures/etcd-cluster.ts';
import { promtool } from '../fixtures/prometheus.ts';
import { clientCertExpiries, notAfterSeconds } from '../helpers/client-cert-expiry.ts';
import { eventually, get } from '../helpers/http.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { startFleet, type RunningFleet } from '../helpers/start-fleet.ts';

// Fleet mode from a clusters file, against two real etcd clusters: alpha (3 members, TLS) and beta (1
// member, plain http). Every route answers for the cluster it names; one member of alpha is killed and
// alpha turns degraded while beta stays healthy. Then two replicas (shards 0/2 and 1/2) over the same
// file export disjoint metrics whose union is the fleet.

let a: EtcdCluster;
let b: EtcdCluster;
let dir: string;
let service: RunningFleet;

function entryFor(name: string, cluster: EtcdCluster): string {
  const lines = [`  - name: ${name}`, `    endpoints: [${cluster.members.map((m) => m.clientUrl).join(', ')}]`];
  if (cluster.pki) lines.push(`    cacert: ${cluster.pki.caFile}`, `    cert: ${cluster.pki.clientCertFile}`, `    key: ${cluster.pki.clientKeyFile}`);
  return lines.join('\n');
}

function writeClusters(file: string, entries: string[]): string {
  const path = join(dir, file);
  writeFileSync(path, `clusters:\n${entries.join('\n')}\n`);
  return path;
}

/** The values of the `cluster` label among a /metrics text's series of `metric`. */
function clustersIn(text: string, metric: string): Set<string> {
  const found = new Set<string>();
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${metric}\\{cluster="([^"]+)"`).exec(line);
    if (match?.[1]) found.add(match[1]);
  }
  return found;
}

beforeAll(async () => {
  [a, b] = await Promise.all([EtcdCluster.start({ size: 3, tls: true }), EtcdCluster.start({ size: 1, tls: false })]);
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-fleet-file-'));
  const file = writeClusters('clusters.yaml', [entryFor('alpha', a), `${entryFor('beta', b)}\n    policy: strict`]);
  service = await startFleet({ ETCD_PROBE_CLUSTERS_FILE: file, ETCD_PROBE_CACHE_TTL: '500ms', ETCD_PROBE_FLEET_REFRESH: '1s' });
});

afterAll(async () => {
  await service?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a clusters file with two real clusters', () => {
  it('lists both, healthy, once the owned clusters have been probed (no request asked for them)', async () => {
    const list = await eventually(
      () => get(`${service.url}/clusters`),
      (r) => r.body.clusters?.every((c: { state: string }) => c.state === 'probed'),
      20_000,
    );
    expect(checkResponse('get', '/clusters', list)).toEqual([]);
    expect(list.body.shard).toBe('0/1');
    expect(list.body.clusters.map((c: { name: string; status: string; owned: boolean }) => [c.name, c.status, c.owned])).toEqual([
      ['alpha', 'healthy', true],
      ['beta', 'healthy', true],
    ]);
    expect(list.body.clusters[0].quorum).toMatchObject({ voting: 3, required: 2, confirmed: true });
    expect(list.body.clusters[0].href).toBe('/clusters/alpha/healthz/etcd');
  });

  it('answers every route for the cluster it names', async () => {
    const [alphaMembers, betaMembers] = await Promise.all([get(`${service.url}/clusters/alpha/members`), get(`${service.url}/clusters/beta/members`)]);
    expect(checkResponse('get', '/clusters/{cluster}/members', alphaMembers)).toEqual([]);
    expect(alphaMembers.body.members.map((m: { name: string }) => m.name).sort()).toEqual(a.members.map((m) => m.name).sort());
    expect(betaMembers.body.members.map((m: { name: string }) => m.name)).toEqual(b.members.map((m) => m.name));
    const one = await get(`${service.url}/clusters/beta/members/${b.members[0]!.name}`);
    expect(one.status).toBe(200);
    const wrong = await get(`${service.url}/clusters/beta/members/no-such-member`);
    expect(wrong.body.error).toBe('MEMBER_NOT_FOUND');
    for (const route of ['alarms', 'history', 'disruption']) {
      const got = await get(`${service.url}/clusters/alpha/${route}`);
      expect(got.status, route).toBe(200);
      expect(checkResponse('get', `/clusters/{cluster}/${route}`, got)).toEqual([]);
    }
    const beta = await get(`${service.url}/clusters/beta/healthz/etcd`);
    expect(checkResponse('get', '/clusters/{cluster}/healthz/etcd', beta)).toEqual([]);
    // beta's own override: policy strict.
    expect(beta.body).toMatchObject({ status: 'healthy', policy: 'strict' });
    const page = await get(`${service.url}/clusters/alpha/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(a.members[0]!.name);
    // Every link of the cluster's page footer, resolved as a browser would against the page's URL, answers.
    const footer = /<footer>(.*?)<\/footer>/s.exec(page.text)?.[1] ?? '';
    const links = [...footer.matchAll(/href="([^"]+)"/g)].map((m) => new URL(m[1]!, `${service.url}/clusters/alpha/`).pathname);
    expect(links).toEqual(expect.arrayContaining(['/', '/clusters/alpha/healthz/etcd', '/metrics', '/openapi.yaml']));
    for (const link of links) expect((await get(`${service.url}${link}`)).status, link).toBe(200);
  });

  it("exports alpha's client-certificate expiry, read from its files; beta speaks plain http and has none", async () => {
    // The same cluster runtime (src/cluster/cluster-runtime.ts) records it as in the single-cluster service.
    const metrics = await get(`${service.url}/metrics`);
    expect(clientCertExpiries(metrics.text)).toEqual({ alpha: notAfterSeconds(readFileSync(a.pki!.clientCertFile)) });
  });

  it('answers 404 for a cluster not in the fleet, and points single-cluster routes to /clusters', async () => {
    const missing = await get(`${service.url}/clusters/gamma/healthz/etcd`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('CLUSTER_NOT_FOUND');
    expect(checkResponse('get', '/clusters/{cluster}/healthz/etcd', missing)).toEqual([]);
    for (const path of ['/healthz/etcd', '/members', '/alarms']) {
      const root = await get(`${service.url}${path}`);
      expect(root.status, path).toBe(404);
      expect(root.body.message, path).toContain('/clusters');
    }
  });

  it('turns alpha degraded when one of its members dies, while beta stays healthy', async () => {
    await a.kill(2);
    const alpha = await eventually(
      () => get(`${service.url}/clusters/alpha/healthz/etcd?fresh`),
      (r) => r.body.status === 'degraded',
      20_000,
      300,
    );
    expect(alpha.status).toBe(200); // quorum policy: degraded passes
    expect(alpha.body.reasons.map((r: { code: string }) => r.code)).toContain('MEMBER_UNREACHABLE');
    const beta = await get(`${service.url}/clusters/beta/healthz/etcd?fresh`);
    expect(beta.body.status).toBe('healthy');
    const list = await eventually(
      () => get(`${service.url}/clusters`),
      (r) => r.body.clusters.find((c: { name: string }) => c.name === 'alpha')?.status === 'degraded',
      10_000,
    );
    expect(list.body.counts).toEqual({ healthy: 1, degraded: 1, unhealthy: 0, unknown: 0 });
    // The fleet page lists the worst first.
    const page = await get(`${service.url}/`);
    expect(page.status).toBe(200);
    expect(page.text.indexOf('>alpha<')).toBeGreaterThan(-1);
    expect(page.text.indexOf('>alpha<')).toBeLessThan(page.text.indexOf('>beta<'));
    const metrics = await get(`${service.url}/metrics`);
    expect(metrics.text).toMatch(/^etcd_probe_cluster_status\{cluster="alpha",status="degraded"\} 1$/m);
    expect(metrics.text).toMatch(/^etcd_probe_cluster_status\{cluster="beta",status="healthy"\} 1$/m);
    expect(metrics.text).toMatch(/^etcd_probe_fleet_clusters 2$/m);
    // One exposition, each family once, as Prometheus's own linter reads it.
    const lint = promtool(['check', 'metrics'], { input: metrics.text });
    expect(lint.output).toBe('');
    expect(lint.status).toBe(0);
    await a.restart(2);
  });
});

describe('two replicas sharding the same clusters file', () => {
  it('export disjoint metrics whose union is the fleet', async () => {
    const names = ['c-01', 'c-02', 'c-03', 'c-04', 'c-05', 'c-06'];
    const owners = names.map((n) => shardOf(n, 2));
    // The names are chosen so that each shard owns some (the hash decides; this only checks the choice).
    expect(new Set(owners).size).toBe(2);
    const file = writeClusters('sharded.yaml', names.map((n, i) => entryFor(n, i % 2 === 0 ? b : a)));
    const replicas = await Promise.all(['0/2', '1/2'].map((shard) => startFleet({ ETCD_PROBE_CLUSTERS_FILE: file, ETCD_PROBE_SHARD: shard, ETCD_PROBE_FLEET_REFRESH: '1s' })));
    try {
      const exported = await Promise.all(
        replicas.map(async (r, index) => {
          const mine = names.filter((_, i) => owners[i] === index);
          const text = await eventually(
            () => get(`${r.url}/metrics`).then((g) => g.text),
            (t) => clustersIn(t, 'etcd_probe_cluster_status').size === mine.length,
            20_000,
          );
          return clustersIn(text, 'etcd_probe_cluster_status');
        }),
      );
      const [zero = new Set<string>(), one = new Set<string>()] = exported;
      expect([...zero].filter((n) => one.has(n))).toEqual([]);
      expect([...zero, ...one].sort()).toEqual(names);
      expect([...zero].sort()).toEqual(names.filter((_, i) => owners[i] === 0));
      // Any replica still answers for any cluster, on demand.
      const other = names.find((_, i) => owners[i] === 1) as string;
      const onDemand = await get(`${replicas[0]!.url}/clusters/${other}/healthz/etcd`);
      expect(onDemand.body.status).toBe('healthy');
      const listed = await get(`${replicas[0]!.url}/clusters`);
      expect(listed.body.clusters.find((c: { name: string }) => c.name === other)).toMatchObject({ owned: false, state: 'probed' });
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });
});
