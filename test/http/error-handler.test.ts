import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { API_ERRORS } from '../../src/http/api-error.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from '../helpers/log-sink.ts';
import { checkResponse, checkSharedResponse, openapi, SINGLE_CLUSTER_PATHS } from '../helpers/openapi.ts';
import { switchableSource } from '../helpers/scripted-source.ts';
import { round, three } from '../probe/observation-builders.ts';

// One envelope for every error the service answers (issue 12): JSON {error, message} by default,
// `CODE: message` text when the client prefers text, each status documented in openapi.yaml and
// validated against it here. Node's own refusals (431, 414, 408, malformed HTTP) are in
// listener-limits.test.ts and listener-starvation.test.ts: they need a real socket.

let app: App | undefined;
let logs: LogSink;

async function build(observations = round(three()).endpoints) {
  const result = loadConfig({ env: { ETCD_PROBE_CACHE_TTL: '5s' }, argv: [], now: new Date() });
  if (!result.ok) throw new Error('bad test config');
  logs = new LogSink();
  const source = switchableSource(observations);
  app = await buildApp({ config: result.config, tls: result.tls, logger: createLogger('info', logs), source });
  return { app, source };
}

afterEach(async () => {
  await app?.server.close();
  app = undefined;
});

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS';

async function request(url: string, headers: Record<string, string> = {}, method: Method | string = 'GET', payload?: string) {
  const res = await (app as App).server.inject({ method: method as Method, url, headers, ...(payload === undefined ? {} : { payload }) });
  const contentType = String(res.headers['content-type'] ?? '');
  const body = contentType.startsWith('application/json') && res.body !== '' ? res.json() : res.body;
  return { status: res.statusCode, contentType, body, text: res.body, headers: res.headers };
}

/** Every documented route, with the values its path parameters take here. */
const ROUTES = [...SINGLE_CLUSTER_PATHS].map((template) => ({ template, url: template.replace('{idOrName}', 'm-a').replace('{member}', 'm-b') }));

describe('the envelope of each error status', () => {
  it('400: a bad query parameter, and a path that is not valid percent-encoding', async () => {
    await build();
    const query = await request('/healthz/etcd?policy=lenient');
    expect(query).toMatchObject({ status: 400, body: { error: 'INVALID_PARAMETER', message: 'policy: must be one of quorum, strict' } });
    expect(query.headers['cache-control']).toBe('no-store');
    expect(checkResponse('GET', '/healthz/etcd', query)).toEqual([]);
    const url = await request('/members/%ZZ');
    expect(url).toMatchObject({ status: 400, body: { error: 'BAD_REQUEST', message: 'the URL path is not valid percent-encoding' } });
    expect(url.headers['x-content-type-options']).toBe('nosniff');
    expect(checkResponse('GET', '/members/{idOrName}', url)).toEqual([]);
  });

  it('404: no route (with the path shown sanitised), and no such member', async () => {
    await build();
    const route = await request('/no/such/<script>alert(1)</script>');
    expect(route).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } });
    // The path as sent (percent-encoded), every character but letters, digits and _.-/ shown as `?`.
    expect(route.body.message).toBe('no route GET /no/such/?3Cscript?3Ealert?1??3C/script?3E; /openapi.yaml lists the routes');
    expect(checkSharedResponse('NotFound', route)).toEqual([]);
    const member = await request('/members/nobody');
    expect(member).toMatchObject({ status: 404, body: { error: 'MEMBER_NOT_FOUND', message: 'no member has that ID or name; members: m-a (a), m-b (b), m-c (c)' } });
    // An answer of the round: cached like it, not no-store.
    expect(member.headers['cache-control']).toBe('max-age=5, stale-while-revalidate=2');
    expect(checkResponse('GET', '/members/{idOrName}', member)).toEqual([]);
    expect(checkResponse('GET', '/disruption/{member}', await request('/disruption/nobody'))).toEqual([]);
    expect(checkResponse('GET', '/history', await request('/history?member=nobody'))).toEqual([]);
  });

  it('405 with Allow for every other method on every route, before any body is read', async () => {
    await build();
    for (const { template, url } of ROUTES) {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PURGE', 'PROPFIND']) {
        const res = await request(url, { 'content-type': 'application/x-www-form-urlencoded' }, method, 'x'.repeat(4096));
        expect(res.status, `${method} ${url}`).toBe(405);
        expect(res.headers.allow).toBe('GET, HEAD');
        expect(res.body).toEqual({ error: 'METHOD_NOT_ALLOWED', message: `${template} answers GET, HEAD only` });
        expect(checkSharedResponse('MethodNotAllowed', res)).toEqual([]);
      }
    }
    expect((await request('/no/such', {}, 'POST')).status).toBe(404);
  });

  it("414: a path parameter longer than a fleet's cluster key can be (namespace/name, 317; 319 with %2F)", async () => {
    await build();
    expect((await request(`/members/${'n'.repeat(320)}`)).status).toBe(404);
    const res = await request(`/members/${'n'.repeat(321)}`);
    expect(res).toMatchObject({ status: 414, body: { error: 'URI_TOO_LONG', message: 'a path parameter is longer than 320 characters' } });
    expect(checkResponse('GET', '/members/{idOrName}', res)).toEqual([]);
  });

  it('500: a failure of the service itself says nothing of it, and logs it', async () => {
    const { source } = await build();
    source.breakWith(new Error('bug: /secret/path'));
    const res = await request('/healthz/etcd');
    expect(res).toMatchObject({ status: 500, body: { error: 'INTERNAL', message: "internal error; the service's log has the details" } });
    expect(res.text).not.toContain('secret');
    expect(checkResponse('GET', '/healthz/etcd', res)).toEqual([]);
    expect(logs.at('error')[0]).toMatchObject({ msg: 'request failed', method: 'GET', route: '/healthz/etcd' });
  });

  it('503: shutting down, no member answered, alarms unknown', async () => {
    const down = { state: 'unreachable' } as const;
    const { app: a } = await build(round(three({ a: down, b: down, c: down })).endpoints);
    const member = await request('/members/m-a');
    expect(member).toMatchObject({ status: 503, body: { error: 'NO_MEMBER_REACHABLE' } });
    expect(checkResponse('GET', '/members/{idOrName}', member)).toEqual([]);
    const alarms = await request('/alarms');
    expect(alarms).toMatchObject({ status: 503, body: { error: 'ALARMS_UNKNOWN' } });
    expect(checkResponse('GET', '/alarms', alarms)).toEqual([]);
    a.lifecycle.beginShutdown();
    const ready = await request('/readyz');
    expect(ready).toMatchObject({ status: 503, body: { error: 'SHUTTING_DOWN' } });
    expect(checkResponse('GET', '/readyz', ready)).toEqual([]);
  });

  it('lists every code of the catalogue in openapi.yaml, and no other', () => {
    expect([...openapi.components.schemas.Error.properties.error.enum].sort()).toEqual(Object.keys(API_ERRORS).sort());
  });
});

describe('errors as text', () => {
  it('answers `CODE: message` when the client prefers text/plain, JSON otherwise, and varies by Accept', async () => {
    await build();
    const cases: [string, string, Record<string, string>][] = [
      ['/healthz/etcd?fresh=banana', '/healthz/etcd', {}],
      ['/members/nobody', '/members/{idOrName}', {}],
      ['/members/%ZZ', '/members/{idOrName}', {}],
    ];
    for (const [url, template] of cases) {
      const text = await request(url, { accept: 'text/plain' });
      expect(text.contentType).toBe('text/plain; charset=utf-8');
      expect(text.text).toMatch(/^[A-Z_]+: .+\n$/);
      expect(text.headers.vary).toContain('Accept');
      expect(checkResponse('GET', template, text)).toEqual([]);
      const json = await request(url, { accept: 'application/json, text/plain;q=0.5' });
      expect(json.contentType).toBe('application/json; charset=utf-8');
      expect(text.text).toBe(`${json.body.error}: ${json.body.message}\n`);
    }
    const route = await request('/nowhere', { accept: 'text/plain' });
    expect(route.text).toBe('NOT_FOUND: no route GET /nowhere; /openapi.yaml lists the routes\n');
    expect(checkSharedResponse('NotFound', route)).toEqual([]);
    const method = await request('/alarms', { accept: 'text/*' }, 'DELETE');
    expect(method.text).toBe('METHOD_NOT_ALLOWED: /alarms answers GET, HEAD only\n');
    // An Accept the service cannot meet is not a 406: it gets JSON.
    const xml = await request('/healthz/etcd', { accept: 'application/xml' });
    expect(xml).toMatchObject({ status: 200, contentType: 'application/json; charset=utf-8' });
  });
});
