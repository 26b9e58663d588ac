import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConnection, loadKubeConfig } from '../../src/kube/kube-connection.ts';
import { capiFleetRules } from '#lab/kube-apiserver/auth.ts';
import { capiCluster } from '#lab/kube-apiserver/capi-clusters.ts';
import { expireNextContinueTokens, issuedContinueTokens } from '#lab/kube-apiserver/rest.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';

// Issue 25, hole 3: the Cluster list was one unbounded answer. It is now asked for in pages of 500
// (limit/continue) from the stand-in, which pages as kube-apiserver does, and an expired continue token
// (410 Gone) restarts the list.

let api: FakeKubeApiServer;
let dir: string;
let management: KubeConnection;

beforeAll(async () => {
  api = await FakeKubeApiServer.start({ clusterApi: true });
  for (let i = 0; i < 1234; i++) api.upsertCapiCluster(capiCluster(`ns-${i % 7}`, `c-${String(i).padStart(4, '0')}`));
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-list-pages-'));
  const kubeconfig = await api.writeKubeconfig(dir, { auth: 'token', token: api.addUser('system:serviceaccount:monitoring:etcd-probe', capiFleetRules('*')) });
  management = new KubeConnection(loadKubeConfig({ kind: 'file', path: kubeconfig }));
}, 60_000);

afterAll(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the Cluster list', () => {
  it('is read in pages of 500 and holds every Cluster once', async () => {
    const before = issuedContinueTokens.length;
    const listed = await management.listCapiClusters(null, null, 10_000);
    expect(issuedContinueTokens.length - before).toBe(2);
    expect(listed).toHaveLength(1234);
    expect(new Set(listed.map((c) => `${c.namespace}/${c.name}`)).size).toBe(1234);
    expect((await management.listCapiClusters('ns-3', null, 10_000)).every((c) => c.namespace === 'ns-3')).toBe(true);
  });

  it('restarts once when a continue token expired (410 Gone), and fails naming the list when it expires again', async () => {
    const before = issuedContinueTokens.length;
    expireNextContinueTokens(1);
    expect(await management.listCapiClusters(null, null, 10_000)).toHaveLength(1234);
    expect(issuedContinueTokens.length - before).toBe(3);
    expireNextContinueTokens(2);
    await expect(management.listCapiClusters(null, null, 10_000)).rejects.toThrow(/list clusters\.cluster\.x-k8s\.io in every namespace/);
  });
});
