import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from '../helpers/log-sink.ts';
import { checkResponse, openapi, SINGLE_CLUSTER_PATHS } from '../helpers/openapi.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { round, three } from '../probe/observation-builders.ts';

// The HTTP layer over a scripted member source (a stand-in for etcd, so no etcd runs here): routes,
// errors, documentation coverage. The same routes are exercised against real etcd in test/integration.

let app: App | undefined;

async function build(observations = round(three()).endpoints, env: Record<string, string> = {}): Promise<App> {
  const result = loadConfig({ env: { ETCD_PROBE_CACHE_TTL: '5s', ...env }, argv: [], now: new Date() });
  if (!result.ok) throw new Error('bad test config');
  app = await buildApp({ config: result.config, tls: result.tls, logger: createLogger('warn', new LogSink()), source: scriptedSource(observations) });
  return app;
}

afterEach(async () => {
  await app?.server.close();
  app = undefined;
});

async function inject(a: App, url: string, headers: Record<string, string> = {}) {
  const res = await a.server.inject({ method: 'GET', url, headers });
  const contentType = String(res.headers['content-type'] ?? '');
  const body = contentType.startsWith('application/json') ? res.json() : res.body;
  return { status: res.statusCode, contentType, body, headers: res.headers };
}

describe('routes and documentation', () => {
  it('documents exactly the routes the app serves, and each documented route answers', async () => {
    const a = await build();
    await a.server.ready();
    const served = a.routes
      .filter((r) => r.startsWith('GET '))
      .map((r) => r.slice(4).replace(/:(\w+)/g, '{$1}'))
      .sort();
    const documented = [...SINGLE_CLUSTER_PATHS].sort();
    expect(served).toEqual(documented);
    for (const path of documented) {
      const res = await a.server.inject({ method: 'GET', url: path.replace('{idOrName}', 'm-a').replace('{member}', 'm-b') });
      expect(res.statusCode, path).toBe(200);
    }
  });

  it('serves openapi.yaml as YAML', async () => {
    const res = await inject(await build(), '/openapi.yaml');
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^application\/yaml/);
    expect(res.body).toMatch(/^openapi: 3\.1\.0$/m);
  });

  it('answers every probe route with documented bodies', async () => {
    const a = await build(round(three({ c: { state: 'unreachable' } })).endpoints);
    for (const [url, template] of [
      ['/healthz/etcd', '/healthz/etcd'],
      ['/healthz/etcd?policy=strict', '/healthz/etcd'],
      ['/members', '/members'],
      ['/members/m-a', '/members/{idOrName}'],
      ['/members/zzz', '/members/{idOrName}'],
      ['/alarms', '/alarms'],
      ['/livez', '/livez'],
      ['/readyz', '/readyz'],
    ] as const) {
      const res = await inject(a, url);
      expect(checkResponse('GET', template, res), url).toEqual([]);
    }
  });

  it('ties readiness to the service, not to etcd: ready while etcd is down, unready on shutdown', async () => {
    const a = await build(round(three({ a: { state: 'unreachable' }, b: { state: 'unreachable' }, c: { state: 'unreachable' } })).endpoints);
    expect((await inject(a, '/healthz/etcd')).status).toBe(503);
    expect((await inject(a, '/readyz')).status).toBe(200);
    a.lifecycle.beginShutdown();
    const res = await inject(a, '/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'SHUTTING_DOWN', message: 'the service is shutting down' });
    expect(res.headers.connection).toBe('close');
    expect((await inject(a, '/livez')).status).toBe(200);
  });

  it('answers errors as {error, message} without stack traces', async () => {
    const a = await build();
    const bad = await inject(a, '/healthz/etcd?policy=lenient');
    expect(bad).toMatchObject({ status: 400, body: { error: 'INVALID_PARAMETER', message: 'policy: must be one of quorum, strict' } });
    const post = await a.server.inject({ method: 'POST', url: '/healthz/etcd', payload: { a: 1 } });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(post.json()).toEqual({ error: 'METHOD_NOT_ALLOWED', message: '/healthz/etcd answers GET, HEAD only' });
    const member = await inject(a, '/members/nobody');
    expect(member.status).toBe(404);
    expect(member.body.error).toBe('MEMBER_NOT_FOUND');
    expect(JSON.stringify(member.body)).not.toMatch(/at .*\.ts:\d+/);
  });

  it('answers HEAD wherever it answers GET: the same status and headers, no body', async () => {
    const a = await build();
    for (const path of [...SINGLE_CLUSTER_PATHS]) {
      const url = path.replace('{idOrName}', 'm-a').replace('{member}', 'm-b');
      const get = await a.server.inject({ method: 'GET', url });
      const head = await a.server.inject({ method: 'HEAD', url });
      expect(head.statusCode, url).toBe(get.statusCode);
      expect(head.body, url).toBe('');
      expect(head.headers['content-type'], url).toBe(get.headers['content-type']);
      expect(head.headers['content-length'], url).toMatch(/^\d+$/);
      // A rendered representation is the same bytes for HEAD: the same tag and length (the others,
      // /metrics and the page, are rendered per request).
      if (get.headers.etag !== undefined) {
        expect(head.headers.etag, url).toBe(get.headers.etag);
        expect(head.headers['content-length'], url).toBe(String(Buffer.byteLength(get.body)));
      }
    }
    expect((await a.server.inject({ method: 'HEAD', url: '/healthz/etcd?polcy=strict' })).statusCode).toBe(400);
    expect((await a.server.inject({ method: 'HEAD', url: '/nowhere' })).statusCode).toBe(404);
  });

  it('/members answers 503 only when no member answered, saying why per endpoint', async () => {
    const a = await build(round([], { deadEndpoints: ['https://x:2379', 'https://y:2379'] }).endpoints);
    const res = await inject(a, '/members');
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('NO_MEMBER_REACHABLE');
    expect(res.body.endpoints.map((e: { error: { code: string } }) => e.error.code)).toEqual(['DNS_FAILURE', 'DNS_FAILURE']);
    expect(checkResponse('GET', '/members', res)).toEqual([]);
  });

  it('/members/{id} accepts the hex ID, in either case', async () => {
    const a = await build();
    expect((await inject(a, '/members/a')).body.name).toBe('m-a');
    expect((await inject(a, '/members/A')).body.name).toBe('m-a');
  });
});
