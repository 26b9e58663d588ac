import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { KubeConfig, PortForward } from '@kubernetes/client-node';
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { etcdPod } from '#lab/kube-apiserver/etcd-pods.ts';
import { controlPlaneNode } from '#lab/kube-apiserver/nodes.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';
import { openTunnel, type ClientTunnel } from '../helpers/client-node-tunnel.ts';
import { eventually } from '../helpers/http.ts';

// The kube-apiserver stand-in's port-forward reaching real etcd processes through client-node's
// PortForward: plain HTTP to etcd's client port, TLS verified end to end through the tunnel (as the probe
// will do it), and no tunnel or backend socket left after many tunnels.

let plain: EtcdCluster;
let secure: EtcdCluster;
let api: FakeKubeApiServer;
let kc: KubeConfig;

function backendOf(cluster: EtcdCluster): { host: string; port: number } {
  const url = new URL(cluster.member(0).clientUrl);
  return { host: url.hostname, port: Number(url.port) };
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });
}

function jsonBody(response: string): unknown {
  const [head, body = ''] = response.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
  return JSON.parse(body);
}

// Duplex.from destroys itself and both halves with an AbortError when the TLS socket on top is destroyed;
// that is expected here and must not surface as an uncaught error.
function duplexOf(tunnel: ClientTunnel): Duplex {
  const duplex = Duplex.from({ readable: tunnel.output, writable: tunnel.input });
  duplex.on('error', () => {});
  return duplex;
}

async function versionThroughTunnel(tunnel: ClientTunnel): Promise<unknown> {
  const response = readAll(tunnel.output);
  tunnel.input.write('GET /version HTTP/1.1\r\nHost: 127.0.0.1:2379\r\nConnection: close\r\n\r\n');
  return jsonBody(await response);
}

beforeAll(async () => {
  [plain, secure] = await Promise.all([EtcdCluster.start({ size: 1, tls: false }), EtcdCluster.start({ size: 1, tls: true })]);
  api = await FakeKubeApiServer.start();
  const [cp1, cp2] = [controlPlaneNode('cp-1'), controlPlaneNode('cp-2')];
  api.upsertNode(cp1);
  api.upsertNode(cp2);
  api.upsertPod(etcdPod(cp1, { backend: backendOf(plain) }));
  api.upsertPod(etcdPod(cp2, { backend: backendOf(secure) }));
  kc = new KubeConfig();
  kc.loadFromString(api.kubeconfig({ auth: 'cert' }));
});

afterAll(async () => {
  await api?.close();
  await plain?.stop();
  await secure?.stop();
});

describe('port-forward to a real etcd', () => {
  it('carries an HTTP/1.1 GET /version to etcd and its answer back; etcd closing ends the tunnel', async () => {
    const tunnel = await openTunnel(kc, 'kube-system', 'etcd-cp-1', 2379);
    expect(await versionThroughTunnel(tunnel)).toMatchObject({ etcdserver: expect.stringMatching(/^3\./), etcdcluster: expect.any(String) });
    expect(await tunnel.closed).toBe(1005);
    const counts = await eventually(async () => [api.openTunnels, api.openBackendSockets], (c) => c.every((n) => n === 0), 2000, 20);
    expect(counts).toEqual([0, 0]);
  });

  it("verifies etcd's serving certificate through the tunnel (servername localhost) and talks HTTPS with a client certificate", async () => {
    const pki = secure.pki;
    if (!pki) throw new Error('the secure cluster has no PKI');
    const tunnel = await openTunnel(kc, 'kube-system', 'etcd-cp-2', 2379);
    const socket = tlsConnect({
      socket: duplexOf(tunnel),
      servername: 'localhost',
      ca: readFileSync(pki.caFile),
      cert: readFileSync(pki.clientCertFile),
      key: readFileSync(pki.clientKeyFile),
    });
    await new Promise((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    expect(socket.authorized).toBe(true);
    const response = readAll(socket);
    socket.write('GET /version HTTP/1.1\r\nHost: localhost:2379\r\nConnection: close\r\n\r\n');
    expect(jsonBody(await response)).toMatchObject({ etcdserver: expect.stringMatching(/^3\./) });
    socket.destroy();
    await tunnel.closed;
  });

  it('a wrong CA fails the TLS handshake through the tunnel, and the tunnel can then be closed cleanly', async () => {
    const pki = secure.pki;
    if (!pki) throw new Error('the secure cluster has no PKI');
    const tunnel = await openTunnel(kc, 'kube-system', 'etcd-cp-2', 2379);
    const socket = tlsConnect({ socket: duplexOf(tunnel), servername: 'localhost', ca: readFileSync(pki.otherCaFile) });
    // `on`, not `once`: the TLS socket reports the handshake failure, then the AbortError of the stream below.
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => socket.on('error', resolve));
    expect(error.code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/);
    tunnel.ws.close();
    await tunnel.closed;
    const counts = await eventually(async () => [api.openTunnels, api.openBackendSockets], (c) => c.every((n) => n === 0), 2000, 20);
    expect(counts).toEqual([0, 0]);
  });

  it('carries gRPC: an etcd3 client reaches the member through a loopback listener piped into port-forwards', async () => {
    // One tunnel per accepted connection, as the probe's transport will do; client-node writes into the
    // socket after it may have ended, so the socket gets an error listener and the pair is closed together.
    const sockets = new Set<Socket>();
    const opened = api.tunnelsOpened;
    const listener: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
      new PortForward(kc).portForward('kube-system', 'etcd-cp-1', [2379], socket, null, socket).then(
        (ws) => {
          const webSocket = ws as unknown as { on(event: 'close', f: () => void): void; close(): void };
          webSocket.on('close', () => socket.destroy());
          socket.on('close', () => webSocket.close());
        },
        () => socket.destroy(),
      );
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const etcd = new Etcd3({ hosts: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`, faultHandling: { host: () => noop, global: noop } });
    try {
      const status = await etcd.maintenance.status();
      expect(status.version).toMatch(/^3\./);
      const members = await etcd.cluster.memberList({});
      expect(members.members).toHaveLength(1);
      expect(api.tunnelsOpened).toBeGreaterThan(opened);
    } finally {
      etcd.close();
      await new Promise((resolve) => listener.close(resolve));
      for (const socket of sockets) socket.destroy();
    }
    const counts = await eventually(async () => [api.openTunnels, api.openBackendSockets], (c) => c.every((n) => n === 0), 5000, 20);
    expect(counts).toEqual([0, 0]);
  });

  it('after 200 tunnels opened, used and closed, no tunnel, backend socket or WebSocket connection is left', async () => {
    const before = api.tunnelsOpened;
    const connectionsBefore = api.openConnections;
    for (let i = 0; i < 200; i++) {
      const tunnel = await openTunnel(kc, 'kube-system', 'etcd-cp-1', 2379);
      if (i % 2 === 0) {
        await versionThroughTunnel(tunnel);
      } else {
        // Closed by the client before etcd answers: the backend socket must still go.
        tunnel.input.write('GET /version HTTP/1.1\r\nHost: x\r\n\r\n');
        tunnel.input.end();
      }
      await tunnel.closed;
    }
    expect(api.tunnelsOpened - before).toBe(200);
    const counts = await eventually(
      async () => [api.openTunnels, api.openBackendSockets, api.openConnections],
      (c) => c[0] === 0 && c[1] === 0 && (c[2] ?? 0) <= connectionsBefore,
      5000,
      50,
    );
    expect(counts[0]).toBe(0);
    expect(counts[1]).toBe(0);
    expect(counts[2]).toBeLessThanOrEqual(connectionsBefore);
  });
});
