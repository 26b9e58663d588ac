import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TunnelledMemberClient } from '../../src/discovery/tunnelled-member-client.ts';
import { KubeConnection } from '../../src/kube/kube-connection.ts';
import type { TlsMaterial } from '../../src/tls/tls-files.ts';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { etcdPod } from '#lab/kube-apiserver/etcd-pods.ts';
import { controlPlaneNode } from '#lab/kube-apiserver/nodes.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';

// A tunnelled member client between a fleet's rounds (ETCD_PROBE_FLEET_HOLD_CONNECTIONS=false): release()
// ends its port-forward and gRPC's connection through it, and the next call opens a new port-forward
// through the kube-apiserver STAND-IN to a REAL etcd member, resuming the API server's TLS session.

let etcd: EtcdCluster;
let api: FakeKubeApiServer;
let tls: TlsMaterial;
const POLL = { timeout: 5000, interval: 20 };

beforeAll(async () => {
  etcd = await EtcdCluster.start({ size: 1, tls: true });
  const pki = etcd.pki!;
  tls = { ca: readFileSync(pki.caFile), cert: readFileSync(pki.clientCertFile), key: readFileSync(pki.clientKeyFile) };
  api = await FakeKubeApiServer.start();
  const node = controlPlaneNode('cp-1');
  api.upsertNode(node);
  const url = new URL(etcd.member(0).clientUrl);
  api.upsertPod(etcdPod(node, { backend: { host: url.hostname, port: Number(url.port) } }));
});

afterAll(async () => {
  await api?.close();
  await etcd?.stop();
});

function tunnelledClient(material: TlsMaterial = tls): TunnelledMemberClient {
  const config = new KubeConfig();
  config.loadFromString(api.kubeconfig({ auth: 'cert' }));
  return new TunnelledMemberClient({ connection: new KubeConnection(config), namespace: 'kube-system', pod: 'etcd-cp-1', node: 'cp-1', port: 2379, timeoutMs: 5000, endpoint: 'port-forward://kube-system/etcd-cp-1:2379', tls: material });
}

describe('a tunnelled member client released after each round', () => {
  it('ends its port-forward on release, answers every call of the next round through a new one, and resumes the TLS sessions with the API server and etcd', async () => {
    const client = tunnelledClient();
    const opened = api.tunnelsOpened;
    const sessions = api.tlsSessions;
    // Per round: every call's outcome, and whether a port-forward was open after the calls and after the
    // release. Rounds 1 and 2 start as soon as the release before them resolved: no call may land on the closing
    // connection. Round 3 starts once the port-forward closed.
    const rounds: { calls: (string | true)[]; open: number; afterRelease: number }[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const outcomes = await Promise.all([client.status(), client.healthRead(), client.memberList(), client.alarmList()]);
        const open = Math.min(1, api.openTunnels);
        await client.release();
        if (i >= 2) await expect.poll(() => api.openTunnels + api.openBackendSockets, POLL).toBe(0);
        rounds.push({ calls: outcomes.map((o) => o.ok || o.error.code), open, afterRelease: Math.min(1, api.openTunnels) });
      }
    } finally {
      client.close();
    }
    // A release is not a failure: no call of a later round is answered with the tunnel's error.
    expect(rounds.map((r) => r.calls)).toEqual(Array.from({ length: 4 }, () => [true, true, true, true]));
    expect(rounds.map((r) => r.open)).toEqual([1, 1, 1, 1]);
    expect(rounds.slice(2).map((r) => r.afterRelease)).toEqual([0, 0]);
    expect(api.tunnelsOpened - opened).toBe(4);
    // With the API server (the WebSocket, client-node's agent keeps sessions) and with etcd (the tunnel's TLS).
    const now = api.tlsSessions;
    expect({ full: now.full - sessions.full, resumed: now.resumed - sessions.resumed }).toEqual({ full: 1, resumed: 3 });
    expect(client.handshakes).toEqual({ full: 1, resumed: 3 });
  });

  it("names a TLS failure made through the tunnel as gRPC's would be named: an untrusted server, and a client etcd rejects", async () => {
    const pki = etcd.pki!;
    const wrongCa = tunnelledClient({ ...tls, ca: readFileSync(pki.otherCaFile) });
    const noClientCert = tunnelledClient({ ca: tls.ca, cert: null, key: null });
    try {
      const [untrusted, rejected] = await Promise.all([wrongCa.status(), noClientCert.status()]);
      expect(untrusted.ok ? 'ok' : untrusted.error.code).toBe('TLS_UNTRUSTED_SERVER');
      expect(rejected.ok ? 'ok' : rejected.error.code).toBe('TLS_CLIENT_REJECTED');
    } finally {
      wrongCa.close();
      noClientCert.close();
    }
  });

  it('a closed client stays closed: no call after close() opens a port-forward', async () => {
    const client = tunnelledClient();
    expect((await client.status()).ok).toBe(true);
    client.close();
    await expect.poll(() => api.openTunnels + api.openBackendSockets, POLL).toBe(0);
    const opened = api.tunnelsOpened;
    expect((await client.status()).ok).toBe(false);
    expect(api.tunnelsOpened).toBe(opened);
  });
});
