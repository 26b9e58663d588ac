import { testTempDir } from '../helpers/temp-dir.ts';
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LISTENER_LIMITS } from '../../src/http/listener-options.ts';
import { issue, makeCa, type TestCa } from '#lab/certs/pki.ts';
import { httpsGet } from '../helpers/https.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { checkSharedResponse } from '../helpers/openapi.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { round, three } from '../probe/observation-builders.ts';

// Can clients that connect and then stall starve the listener, so that the kubelet's /livez fails?
// Reproduced before issue 10's fix: at ETCD_PROBE_MAX_CONNECTIONS=5 over HTTPS, five TCP connections
// that never sent a byte held every slot until Node's default TLS handshake timeout, 120 s, and every
// /livez in between was closed unanswered (over plain HTTP the same five were cut after ~12 s by the
// headers timeout). These tests use real sockets: attackers from other loopback addresses
// (127.0.0.2...), /livez from 127.0.0.1.

let service: RunningService | undefined;
const attackers: Socket[] = [];

afterEach(async () => {
  for (const socket of attackers.splice(0)) socket.destroy();
  await service?.close();
  service = undefined;
});

async function httpsService(ca: TestCa, env: Record<string, string>): Promise<RunningService> {
  const dir = testTempDir('etcd-probe-starve-');
  const pair = await issue(ca, { commonName: 'listener', server: true, ips: ['127.0.0.1'] });
  writeFileSync(join(dir, 'tls.crt'), pair.cert);
  writeFileSync(join(dir, 'tls.key'), pair.key);
  const tls = { ETCD_PROBE_TLS_CERT: join(dir, 'tls.crt'), ETCD_PROBE_TLS_KEY: join(dir, 'tls.key') };
  return startService({ ...tls, ...env }, { source: () => scriptedSource(round(three()).endpoints) });
}

/** A socket from `from` that is closed at `closedAt` (ms after `since`), or still open (null). */
interface Attacker {
  readonly socket: Socket;
  closedAt: number | null;
  /** What the server wrote to it. */
  received: string;
}

function attack(url: string, from: string, since: number, first: string | Buffer | null, trickle: string | Buffer | null): Attacker {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), localAddress: from });
  const attacker: Attacker = { socket, closedAt: null, received: '' };
  attackers.push(socket);
  socket.on('error', () => {});
  socket.on('data', (chunk: Buffer) => {
    attacker.received += chunk.toString('latin1');
  });
  if (first !== null) socket.on('connect', () => socket.write(first));
  // One byte every 500 ms: never enough to finish, always enough to look alive.
  const timer = trickle === null ? null : setInterval(() => socket.write(trickle), 500);
  socket.on('close', () => {
    if (timer) clearInterval(timer);
    attacker.closedAt = performance.now() - since;
  });
  return attacker;
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(check()).toBe(true);
}

async function livez(url: string, ca: TestCa | null): Promise<number | 'refused'> {
  try {
    if (ca) return (await httpsGet(`${url}/livez`, { ca: ca.cert })).status;
    return (await fetch(`${url}/livez`)).status;
  } catch {
    return 'refused';
  }
}

async function metric(s: RunningService, name: string): Promise<number> {
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await s.app.metrics.registry.metrics())?.[1]);
}

// A TLS record header announcing a 512-byte handshake message, then one byte at a time.
const PARTIAL_CLIENT_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc]);

describe('a client that holds connections open', () => {
  it('is bounded by the limits docs/security.md promises', () => {
    expect(LISTENER_LIMITS).toMatchObject({ handshakeTimeoutMs: 10_000, headersTimeoutMs: 10_000, requestTimeoutMs: 15_000, connectionsCheckingIntervalMs: 2_000 });
  });

  it('cannot take more than its share: half-open TLS sockets past ETCD_PROBE_MAX_CONNECTIONS_PER_CLIENT are closed at once, and /livez answers', async () => {
    const ca = await makeCa('starve CA 1');
    service = await httpsService(ca, { ETCD_PROBE_MAX_CONNECTIONS: '5', ETCD_PROBE_MAX_CONNECTIONS_PER_CLIENT: '2' });
    const since = performance.now();
    const held = Array.from({ length: 5 }, () => attack(service!.url, '127.0.0.2', since, null, null));
    await until(() => held.filter((a) => a.closedAt !== null).length === 3, 2000);
    expect(await metric(service, 'etcd_probe_connections_dropped_per_client_total')).toBe(3);
    const started = performance.now();
    expect(await livez(service.url, ca)).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(held.filter((a) => a.closedAt === null)).toHaveLength(2);
  });

  it('over HTTPS, idle and trickling TLS handshakes from many addresses hold every slot for at most the 10 s handshake timeout', async () => {
    const ca = await makeCa('starve CA 2');
    service = await httpsService(ca, { ETCD_PROBE_MAX_CONNECTIONS: '5' });
    const since = performance.now();
    const held = [
      attack(service.url, '127.0.0.2', since, null, null),
      attack(service.url, '127.0.0.3', since, null, null),
      attack(service.url, '127.0.0.4', since, null, null),
      attack(service.url, '127.0.0.5', since, PARTIAL_CLIENT_HELLO, Buffer.from([0x00])),
      attack(service.url, '127.0.0.6', since, PARTIAL_CLIENT_HELLO, Buffer.from([0x00])),
    ];
    // Every slot is taken: /livez is really refused (the starvation is real while it lasts).
    await until(() => service!.app.server.server.listening, 1000);
    let first: number | 'refused' = 200;
    for (let i = 0; i < 20 && first !== 'refused'; i++) first = await livez(service.url, ca);
    expect(first).toBe('refused');
    let answer: number | 'refused' = 'refused';
    while (answer !== 200 && performance.now() - since < 30_000) {
      answer = await livez(service.url, ca);
      if (answer !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const answeredAfter = performance.now() - since;
    expect(answer).toBe(200);
    expect(answeredAfter).toBeLessThan(LISTENER_LIMITS.handshakeTimeoutMs + 2500);
    // Each was cut by the handshake deadline, the tricklers too (they never went idle).
    for (const a of held) {
      expect(a.closedAt).not.toBeNull();
      expect(a.closedAt!).toBeGreaterThan(LISTENER_LIMITS.handshakeTimeoutMs - 500);
      expect(a.closedAt!).toBeLessThan(LISTENER_LIMITS.handshakeTimeoutMs + 2500);
    }
  }, 40_000);

  it('over HTTP, slow headers and a slow body are cut by the 10 s headers and 15 s request timeouts', async () => {
    service = await startService({ ETCD_PROBE_MAX_CONNECTIONS: '3' }, { source: () => scriptedSource(round(three()).endpoints) });
    const since = performance.now();
    const idle = attack(service.url, '127.0.0.2', since, null, null);
    const slowHeaders = attack(service.url, '127.0.0.3', since, 'GET /livez HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'a');
    const slowBody = attack(service.url, '127.0.0.4', since, 'GET /livez HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n', 'b');
    await until(() => service!.app.server.server.listening, 1000);
    let first: number | 'refused' = 200;
    for (let i = 0; i < 20 && first !== 'refused'; i++) first = await livez(service.url, null);
    expect(first).toBe('refused');
    const check = LISTENER_LIMITS.connectionsCheckingIntervalMs + 500;
    await until(() => idle.closedAt !== null && slowHeaders.closedAt !== null, LISTENER_LIMITS.headersTimeoutMs + check);
    for (const a of [idle, slowHeaders]) expect(a.closedAt!).toBeGreaterThan(LISTENER_LIMITS.headersTimeoutMs - 500);
    // A request that began is told why, in the envelope (Node's timeout, answered by client-error.ts).
    expect(slowHeaders.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    const timeout = JSON.parse(slowHeaders.received.slice(slowHeaders.received.indexOf('\r\n\r\n') + 4));
    expect(timeout).toEqual({ error: 'REQUEST_TIMEOUT', message: 'the request did not arrive in time' });
    expect(checkSharedResponse('RequestTimeout', { status: 408, contentType: 'application/json; charset=utf-8', body: timeout })).toEqual([]);
    // Two slots are free again: /livez answers while the slow body still trickles.
    expect(await livez(service.url, null)).toBe(200);
    await until(() => slowBody.closedAt !== null, LISTENER_LIMITS.requestTimeoutMs + check - (performance.now() - since));
    expect(slowBody.closedAt!).toBeGreaterThan(LISTENER_LIMITS.requestTimeoutMs - 500);
  }, 40_000);
});
