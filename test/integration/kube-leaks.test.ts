import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { historyLimitsOf, thresholdsOf } from '../../src/core/probe-core.ts';
import { createSource } from '../../src/discovery/create-source.ts';
import type { MemberSource } from '../../src/probe/member-source.ts';
import { Prober } from '../../src/probe/prober.ts';
import { fixedTls } from '../../src/tls/tls-provider.ts';
import { SharedCluster } from '#lab/etcd/shared-cluster.ts';
import { etcdPod } from '#lab/kube-apiserver/etcd-pods.ts';
import { controlPlaneNode } from '#lab/kube-apiserver/nodes.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';
import { connectionsTo, socketsOfThisProcess, unixListenersOfThisProcess } from '../helpers/proc-sockets.ts';

// A thousand port-forward rounds against the kube-apiserver STAND-IN and a real etcd cluster must not
// leave tunnels, sockets or listeners behind: tunnels are reused, each member owns one listener (a unix
// socket in a private directory), and closing the prober and source closes every one of them.

// The project's shared cluster: this file only reads it.
const cluster = SharedCluster.get();
let api: FakeKubeApiServer;
let prober: Prober;
let source: MemberSource;
let kubeconfigDir: string;

/** How long a socket may take to close after its owner let go. */
const POLL = { timeout: 5000, interval: 25 };

function listeners(): number {
  return socketsOfThisProcess().filter((s) => s.listening).length + unixListenersOfThisProcess().length;
}

/** The tunnels' sockets: each in its own directory of mode 0700 under the temporary directory. */
function tunnelSockets(): string[] {
  return unixListenersOfThisProcess().filter((p) => /\/etcd-probe-tunnel-[^/]+\/etcd\.sock$/.test(p));
}

function apiConnections(): number {
  return connectionsTo(new Set([api.port]));
}

async function rounds(n: number): Promise<string> {
  let status = '';
  for (let i = 0; i < n; i++) status = (await prober.round()).verdict.status;
  return status;
}

beforeAll(async () => {
  kubeconfigDir = mkdtempSync(join(tmpdir(), 'etcd-probe-kube-leaks-'));
  api = await FakeKubeApiServer.start();
  cluster.members.forEach((m) => {
    const url = new URL(m.clientUrl);
    api.upsertNode(controlPlaneNode(m.name));
    api.upsertPod(etcdPod(m.name, { backend: { host: url.hostname, port: Number(url.port) } }));
  });
  const pki = cluster.pki!;
  const env = {
    ETCD_PROBE_KUBECONFIG: await api.writeKubeconfig(kubeconfigDir, { auth: 'token' }),
    ETCD_PROBE_CACERT: pki.caFile,
    ETCD_PROBE_CERT: pki.clientCertFile,
    ETCD_PROBE_KEY: pki.clientKeyFile,
    ETCD_PROBE_TIMEOUT: '1s',
  };
  const result = loadConfig({ env, argv: [], now: new Date() });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  const { config, tls } = result;
  source = await createSource({ config, tls: fixedTls(tls), now: Date.now });
  prober = new Prober({ source, thresholds: thresholdsOf(config), history: historyLimitsOf(config), now: Date.now });
}, 60_000);

afterAll(async () => {
  prober?.close();
  await source?.close();
  await api?.close();
  if (kubeconfigDir) rmSync(kubeconfigDir, { recursive: true, force: true });
});

describe('port-forward resources over many rounds', () => {
  it('1000 rounds reuse one tunnel and one listener per member; a refused tunnel adds nothing; close frees all', async () => {
    const listenersBefore = listeners();
    expect(await rounds(10)).toBe('healthy');
    const tunnelsAfterWarmup = api.tunnelsOpened;
    expect(api.openTunnels).toBe(3);
    expect(listeners() - listenersBefore).toBe(3);
    // Every listener is a unix socket that only this user can reach: no loopback TCP port for etcd.
    const sockets = tunnelSockets();
    expect(sockets).toHaveLength(3);
    for (const path of sockets) expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);

    expect(await rounds(1000)).toBe('healthy');
    // The same three tunnels carried every round: none was reopened, none is extra.
    expect(api.tunnelsOpened).toBe(tunnelsAfterWarmup);
    expect(api.openTunnels).toBe(3);
    expect(api.openBackendSockets).toBe(3);
    expect(listeners() - listenersBefore).toBe(3);
    // The three WebSockets, and no API request connection left lingering (their dispatchers are closed).
    await expect.poll(apiConnections, POLL).toBe(3);

    // A node whose tunnel the API server refuses, round after round: failures add no socket or listener.
    api.setPortForwardFailure('kube-system', 'etcd-m3', 'refuse');
    // Restarting the API server drops the open tunnels, so every member must dial a new one.
    await api.stop();
    await api.start();
    expect(await rounds(200)).toBe('degraded');
    await expect.poll(() => api.openTunnels, POLL).toBeLessThanOrEqual(3);
    expect(listeners() - listenersBefore).toBe(3);
    await expect.poll(apiConnections, POLL).toBeLessThanOrEqual(3);
    api.setPortForwardFailure('kube-system', 'etcd-m3', null);

    prober.close();
    await source.close();
    await expect.poll(() => api.openTunnels, POLL).toBe(0);
    await expect.poll(() => api.openBackendSockets, POLL).toBe(0);
    await expect.poll(() => listeners() - listenersBefore, POLL).toBe(0);
    await expect.poll(apiConnections, POLL).toBe(0);
    // The sockets and their directories are gone.
    for (const path of sockets) expect(existsSync(dirname(path))).toBe(false);
  }, 180_000);
});
