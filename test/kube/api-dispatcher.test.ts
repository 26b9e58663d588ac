import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiDispatcher } from '../../src/kube/api-dispatcher.ts';
import { KubeConnection } from '../../src/kube/kube-connection.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';

// API requests of one kubeconfig connect with one TLS context and resume each other's TLS sessions;
// each request's dispatcher is still its own and closed after the answer (no connection lingers).
// Against the kube-apiserver STAND-IN (lab/kube-apiserver), a real HTTPS server.

let api: FakeKubeApiServer;

/** A full garbage collection, as between two rounds seconds apart (the unit project runs without --expose-gc). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

function connection(auth: 'cert' | 'token'): KubeConnection {
  const config = new KubeConfig();
  config.loadFromString(api.kubeconfig({ auth }));
  return new KubeConnection(config);
}

beforeAll(async () => {
  api = await FakeKubeApiServer.start();
});

afterAll(async () => {
  await api?.close();
});

describe('API requests of one kubeconfig', () => {
  it.each(['cert', 'token'] as const)('resume the TLS session of the first request, and leave no connection open (%s auth)', async (auth) => {
    const kube = connection(auth);
    const before = api.tlsSessions;
    for (let i = 0; i < 5; i++) await kube.listNodes('node-role.kubernetes.io/control-plane', 2000);
    const after = api.tlsSessions;
    expect({ full: after.full - before.full, resumed: after.resumed - before.resumed }).toEqual({ full: 1, resumed: 4 });
    await expect.poll(() => api.openConnections, { timeout: 5000, interval: 50 }).toBe(0);
  });

  it('resume a session after garbage collections (undici alone keeps sessions through WeakRefs)', async () => {
    const kube = connection('cert');
    const before = api.tlsSessions;
    for (let i = 0; i < 3; i++) {
      await kube.listNodes('x', 2000);
      // Let the connection close and its tickets arrive, then collect, as the seconds between rounds would.
      await expect.poll(() => api.openConnections, { timeout: 5000, interval: 20 }).toBe(0);
      collectGarbage();
      collectGarbage();
    }
    const after = api.tlsSessions;
    expect({ full: after.full - before.full, resumed: after.resumed - before.resumed }).toEqual({ full: 1, resumed: 2 });
  });

  it('do not share sessions between kubeconfigs (each has its own TLS context)', async () => {
    const before = api.tlsSessions;
    await connection('cert').listNodes('x', 2000);
    await connection('cert').listNodes('x', 2000);
    const after = api.tlsSessions;
    expect(after.full - before.full).toBe(2);
  });

  it("leave client-node's own dispatcher in place behind a proxy", async () => {
    const config = new KubeConfig();
    config.loadFromString(api.kubeconfig({ auth: 'token' }));
    const cluster = config.getCurrentCluster();
    if (!cluster) throw new Error('no cluster');
    config.clusters = [{ ...cluster, proxyUrl: 'http://127.0.0.1:9' }];
    expect(await apiDispatcher(config)).toBeNull();
  });
});
