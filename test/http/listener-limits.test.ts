import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LISTENER_LIMITS } from '../../src/http/listener-options.ts';
import { checkSharedResponse } from '../helpers/openapi.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { round, three } from '../probe/observation-builders.ts';

// The listener's limits on a real socket (inject would bypass Node's HTTP server), over a scripted source.

let service: RunningService | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

function raw(url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string; contentType: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, contentType: String(res.headers['content-type'] ?? '') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes bytes to the server as they are and reads what comes back until it closes the connection. */
function rawBytes(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('listener limits', () => {
  it('sets the connection limit, keep-alive and header timeouts on the Node server', async () => {
    service = await startService({ ETCD_PROBE_MAX_CONNECTIONS: '77' }, { source: () => scriptedSource(round(three()).endpoints) });
    const server = service.app.server.server;
    expect(server.maxConnections).toBe(77);
    expect(server.keepAliveTimeout).toBe(LISTENER_LIMITS.keepAliveTimeoutMs);
    expect(server.headersTimeout).toBe(LISTENER_LIMITS.headersTimeoutMs);
    expect(server.requestTimeout).toBe(LISTENER_LIMITS.requestTimeoutMs);
  });

  it('refuses oversized headers (431) and request lines (414) in the envelope, a body before reading it (405), and still serves', async () => {
    service = await startService({}, { source: () => scriptedSource(round(three()).endpoints) });
    const big = await raw(`${service.url}/livez`, { 'x-filler': 'a'.repeat(LISTENER_LIMITS.maxHeaderBytes) });
    expect(big.status).toBe(431);
    expect(JSON.parse(big.text)).toEqual({ error: 'HEADERS_TOO_LARGE', message: 'the request line and headers are longer than the 8 KiB the service reads' });
    expect(checkSharedResponse('HeadersTooLarge', { status: big.status, contentType: big.contentType, body: JSON.parse(big.text) })).toEqual([]);
    const long = await raw(`${service.url}/healthz/etcd?${'q'.repeat(LISTENER_LIMITS.maxHeaderBytes)}`, {});
    expect(long.status).toBe(414);
    expect(JSON.parse(long.text).error).toBe('URI_TOO_LONG');
    expect(checkSharedResponse('UriTooLong', { status: long.status, contentType: long.contentType, body: JSON.parse(long.text) })).toEqual([]);
    // No route reads a body: a POST is refused by its method before a byte of it is read.
    const body = await raw(`${service.url}/livez`, { 'content-type': 'application/json' }, JSON.stringify({ pad: 'b'.repeat(2048) }));
    expect(body.status).toBe(405);
    expect(JSON.parse(body.text).error).toBe('METHOD_NOT_ALLOWED');
    expect((await raw(`${service.url}/livez`, {})).status).toBe(200);
  });

  it('answers a request that is not HTTP/1.1 with a 400 in the envelope, naming the parser error, not the bytes', async () => {
    service = await startService({}, { source: () => scriptedSource(round(three()).endpoints) });
    const answer = await rawBytes(service.url, 'BR<EW /livez HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('\r\nX-Content-Type-Options: nosniff\r\n');
    const payload = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(payload).toEqual({ error: 'BAD_REQUEST', message: 'the request is not valid HTTP/1.1 (HPE_INVALID_METHOD)' });
    expect(answer).not.toContain('BR<EW');
  });
});
