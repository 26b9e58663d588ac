import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { isGuarded } from '../../src/http/bearer-guard.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from '../helpers/log-sink.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { round, three } from '../probe/observation-builders.ts';

// The bearer guard over a scripted member source; the same against real etcd is in test/integration/listener-security.test.ts.

const TOKEN = 'Zm9vYmFy-token.1';
const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-guard-'));
const tokenPath = join(dir, 'token');
writeFileSync(tokenPath, `${TOKEN}\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let app: App | undefined;
let logs: LogSink;

async function build(env: Record<string, string> = {}): Promise<App> {
  const result = loadConfig({ env: { ETCD_PROBE_AUTH_TOKEN_FILE: tokenPath, ETCD_PROBE_LISTEN: '127.0.0.1:0', ...env }, argv: [], now: new Date() });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
  logs = new LogSink();
  app = await buildApp({ config: result.config, tls: result.tls, auth: result.auth, logger: createLogger('trace', logs), source: scriptedSource(round(three()).endpoints) });
  return app;
}

afterEach(async () => {
  await app?.server.close();
  app = undefined;
});

async function inject(url: string, authorization?: string, method: 'GET' | 'HEAD' = 'GET') {
  const res = await (app as App).server.inject({ method, url, headers: authorization === undefined ? {} : { authorization } });
  const contentType = String(res.headers['content-type'] ?? '');
  return { status: res.statusCode, contentType, body: contentType.startsWith('application/json') && method === 'GET' ? res.json() : res.body, headers: res.headers };
}

describe('isGuarded', () => {
  it('matches a route and the routes under it, not its look-alikes', () => {
    const routes = ['/members', '/metrics'];
    expect(isGuarded('/members', routes)).toBe(true);
    expect(isGuarded('/members/:idOrName', routes)).toBe(true);
    expect(isGuarded('/membership', routes)).toBe(false);
    expect(isGuarded('/healthz/etcd', routes)).toBe(false);
  });

  it("guards a fleet cluster's routes as one cluster's, and under /clusters all of them but the verdict routes", () => {
    expect(isGuarded('/clusters/:cluster/members', ['/members'])).toBe(true);
    expect(isGuarded('/clusters/:cluster/alarms', ['/members'])).toBe(false);
    for (const url of ['/clusters/:cluster/', '/clusters/:cluster/alarms', '/clusters/:cluster/history', '/clusters/:cluster/disruption/:member', '/clusters/:cluster/status/fragment']) {
      expect(isGuarded(url, ['/clusters']), url).toBe(true);
    }
    expect(isGuarded('/clusters', ['/clusters'])).toBe(true);
    // The verdict keeps its own rule: a load balancer without the token still gets a summary and the status.
    expect(isGuarded('/clusters/:cluster/healthz/etcd', ['/clusters'])).toBe(false);
    expect(isGuarded('/clusters/:cluster/healthz/etcd/members/:idOrName', ['/clusters'])).toBe(false);
    expect(isGuarded('/clusters/:cluster/healthz/etcd', ['/clusters', '/healthz/etcd'])).toBe(true);
  });
});

describe('the bearer guard', () => {
  it('answers 401 with a Bearer challenge and the {error, message} body without a token, 200 with it', async () => {
    await build();
    for (const url of ['/members', '/members/m-a', '/alarms', '/metrics']) {
      const missing = await inject(url);
      expect(missing.status, url).toBe(401);
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="etcd-probe"');
      expect(missing.body).toEqual({ error: 'UNAUTHORIZED', message: 'this route needs a bearer token (Authorization: Bearer <token>)' });
      const template = url === '/members/m-a' ? '/members/{idOrName}' : url;
      expect(checkResponse('GET', template, missing)).toEqual([]);

      const wrong = await inject(url, 'Bearer not-the-token');
      expect(wrong.status).toBe(401);
      expect(wrong.headers['www-authenticate']).toBe('Bearer realm="etcd-probe", error="invalid_token"');
      expect(wrong.body).toEqual({ error: 'UNAUTHORIZED', message: 'the bearer token is not valid' });
      expect(checkResponse('GET', template, wrong)).toEqual([]);

      expect((await inject(url, `Bearer ${TOKEN}`)).status, url).toBe(200);
    }
    expect((await inject('/members', 'Digest username="x"')).headers['www-authenticate']).toBe('Bearer realm="etcd-probe"');
    expect((await inject('/members', 'Basic dXNlcjpwYXNz')).headers['www-authenticate']).toBe('Bearer realm="etcd-probe", error="invalid_token"');
  });

  it('answers its 401 as text to a client that prefers text, with the documented headers', async () => {
    await build();
    const res = await (app as App).server.inject({ method: 'GET', url: '/alarms', headers: { accept: 'text/plain' } });
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('UNAUTHORIZED: this route needs a bearer token (Authorization: Bearer <token>)\n');
    expect(res.headers['cache-control']).toBe('no-store');
    const seen = { status: res.statusCode, contentType: String(res.headers['content-type']), body: res.body, headers: res.headers };
    expect(checkResponse('GET', '/alarms', seen)).toEqual([]);
  });

  it('guards HEAD too, and leaves /healthz/etcd, /livez, /readyz and /openapi.yaml open', async () => {
    await build();
    expect((await inject('/members', undefined, 'HEAD')).status).toBe(401);
    for (const url of ['/healthz/etcd', '/livez', '/readyz', '/openapi.yaml']) expect((await inject(url)).status, url).toBe(200);
    // A wrong token on an open route is not a reason to refuse it.
    expect((await inject('/healthz/etcd', 'Bearer wrong')).status).toBe(200);
  });

  it('cannot be bypassed by spelling the path differently', async () => {
    await build();
    for (const url of ['/members/', '/members?x=1', '/%6Dembers', '/members/%6D-a', '//members']) {
      const res = await inject(url);
      expect([401, 404], url).toContain(res.status);
    }
  });

  it('guards the configured routes only', async () => {
    await build({ ETCD_PROBE_AUTH_ROUTES: '/healthz/etcd' });
    expect((await inject('/healthz/etcd')).status).toBe(401);
    expect((await inject('/healthz/etcd', `Bearer ${TOKEN}`)).status).toBe(200);
    expect((await inject('/members')).status).toBe(200);
  });

  it('leaves every route open without a token file', async () => {
    const result = loadConfig({ env: {}, argv: [], now: new Date() });
    if (!result.ok) throw new Error('bad config');
    app = await buildApp({ config: result.config, tls: result.tls, logger: createLogger('silent'), source: scriptedSource(round(three()).endpoints) });
    expect((await inject('/members')).status).toBe(200);
  });

  it('never writes the token to the log, even at trace level with the request headers', async () => {
    await build();
    await inject('/members', `Bearer ${TOKEN}`);
    await inject('/members', 'Bearer wrong-token-value');
    app?.server.log.info({ req: { headers: { authorization: `Bearer ${TOKEN}` } } }, 'a request');
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.raw).not.toContain(TOKEN);
    expect(logs.raw).not.toContain('wrong-token-value');
  });
});
