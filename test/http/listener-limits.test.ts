import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { LISTENER_LIMITS } from '../../src/http/listener-options.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { round, three } from '../probe/observation-builders.ts';

// The listener's limits on a real socket (inject would bypass Node's HTTP server), over a scripted source.

let service: RunningService | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

function raw(url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
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

  it('refuses oversized headers with 431 and bodies with 413, and still serves', async () => {
    service = await startService({}, { source: () => scriptedSource(round(three()).endpoints) });
    const big = await raw(`${service.url}/livez`, { 'x-filler': 'a'.repeat(LISTENER_LIMITS.maxHeaderBytes) });
    expect(big.status).toBe(431);
    const body = await raw(`${service.url}/livez`, { 'content-type': 'application/json' }, JSON.stringify({ pad: 'b'.repeat(2048) }));
    expect(body.status).toBe(413);
    expect(JSON.parse(body.text).error).toBe('PAYLOAD_TOO_LARGE');
    expect((await raw(`${service.url}/livez`, {})).status).toBe(200);
  });
});
