import { EventEmitter } from 'node:events';
import type { SecureContext } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import type WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { DENIED_CODE, DialGuard } from '../../src/kube/dial-guard.ts';
import { webSocketConnector } from '../../src/kube/web-socket-connector.ts';
import { issue, makeCa } from '#lab/certs/pki.ts';

/** A kubeconfig for one cluster with its CA and a client certificate, as a Cluster API kubeconfig Secret has. */
async function kubeconfig(): Promise<{ config: KubeConfig; rotate(): Promise<void> }> {
  const ca = await makeCa('kube-ca');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const config = new KubeConfig();
  const load = async () => {
    const client = await issue(ca, { commonName: 'etcd-probe', client: true });
    config.loadFromOptions({
      clusters: [{ name: 'w', server: 'https://127.0.0.1:6443', caData: b64(ca.cert), skipTLSVerify: false }],
      users: [{ name: 'u', certData: b64(client.cert), keyData: b64(client.key) }],
      contexts: [{ name: 'c', cluster: 'w', user: 'u' }],
      currentContext: 'c',
    });
  };
  await load();
  return { config, rotate: load };
}

/** Dials through the connector and returns the options it opened the WebSocket with (the fake refuses at once). */
async function optionsOfOneDial(connector: ReturnType<typeof webSocketConnector>, seen: WebSocket.ClientOptions[]): Promise<WebSocket.ClientOptions> {
  await expect(connector.connect('/api/v1/namespaces/kube-system/pods/etcd-a/portforward?ports=2379', null, null)).rejects.toThrow('refused by the test');
  const last = seen.at(-1);
  if (!last) throw new Error('the connector opened no WebSocket');
  return last;
}

describe('webSocketConnector', () => {
  it("dials every WebSocket of a kubeconfig with one TLS context, and a new one when the kubeconfig's credentials change", async () => {
    const { config, rotate } = await kubeconfig();
    const seen: WebSocket.ClientOptions[] = [];
    const connector = webSocketConnector(config, (_uri, options) => {
      seen.push(options);
      const fake = new EventEmitter();
      setImmediate(() => fake.emit('error', new Error('refused by the test')));
      return fake as unknown as WebSocket;
    });
    const contextOf = (o: WebSocket.ClientOptions) => (o as { secureContext?: SecureContext }).secureContext;
    const first = contextOf(await optionsOfOneDial(connector, seen));
    const second = contextOf(await optionsOfOneDial(connector, seen));
    expect(first).toBeDefined();
    expect(second).toBe(first);
    await rotate();
    const third = contextOf(await optionsOfOneDial(connector, seen));
    expect(third).toBeDefined();
    expect(third).not.toBe(first);
  });

  // Issue 25: the port-forward of a Secret's kubeconfig goes through the deny list too.
  it('opens no WebSocket to a server in the deny list, and dials a name through the guard', async () => {
    const { config } = await kubeconfig();
    const seen: WebSocket.ClientOptions[] = [];
    const open = (_uri: string, options: WebSocket.ClientOptions) => {
      seen.push(options);
      const fake = new EventEmitter();
      queueMicrotask(() => fake.emit('error', new Error('refused by the test')));
      return fake as unknown as WebSocket;
    };
    const denied = webSocketConnector(config, open, new DialGuard(['127.0.0.0/8']));
    await expect(denied.connect('/api/v1/namespaces/kube-system/pods/etcd-a/portforward?ports=2379', null, null)).rejects.toMatchObject({ code: DENIED_CODE });
    expect(seen).toEqual([]);
    const guard = new DialGuard(['169.254.0.0/16']);
    const allowed = webSocketConnector(config, open, guard);
    expect((await optionsOfOneDial(allowed, seen) as { lookup?: unknown }).lookup).toBe(guard.lookup);
  });
});

