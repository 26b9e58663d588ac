import { testTempDir } from '../helpers/temp-dir.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { eventually } from '../helpers/http.ts';
import { LogSink } from '../helpers/log-sink.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { CLUSTER, round, three } from '../probe/observation-builders.ts';

// What a token changes beyond the guarded routes (issue 10): the status page guarded by default, the
// summary that /healthz/etcd gives callers without the token, the headers that keep guarded answers
// out of shared caches, nosniff everywhere, and a token file that fails closed.

const TOKEN = 'page-token.7';
let app: App | undefined;
let logs: LogSink;
let tokenPath: string;

async function build(env: Record<string, string> = {}, withToken = true): Promise<App> {
  const dir = testTempDir('etcd-probe-guarded-');
  tokenPath = join(dir, 'token');
  writeFileSync(tokenPath, `${TOKEN}\n`);
  const auth = withToken ? { ETCD_PROBE_AUTH_TOKEN_FILE: tokenPath } : {};
  const result = loadConfig({ env: { ...auth, ETCD_PROBE_LISTEN: '127.0.0.1:0', ...env }, argv: [], now: new Date() });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
  logs = new LogSink();
  // Member m-c is down: the verdict has a reason that names a member and its endpoint.
  const source = scriptedSource(round(three({ c: { state: 'unreachable' } })).endpoints);
  app = await buildApp({ config: result.config, tls: result.tls, auth: result.auth, logger: createLogger('info', logs), source, reloadIntervalMs: 50 });
  return app;
}

afterEach(async () => {
  await app?.server.close();
  app = undefined;
});

async function inject(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' | 'POST' = 'GET', payload?: string) {
  const res = await (app as App).server.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  const contentType = String(res.headers['content-type'] ?? '');
  return { status: res.statusCode, contentType, body: contentType.startsWith('application/json') && res.body ? res.json() : res.body, text: res.body, headers: res.headers };
}

const bearer = { authorization: `Bearer ${TOKEN}` };
// What only the token may reveal: member names, endpoints, the cluster ID.
const DETAILS = ['m-a', 'm-b', 'm-c', 'https://', CLUSTER];

describe('the status page with a token set', () => {
  it('is guarded by default, page and fragment, and the page asks a browser for the token (Basic)', async () => {
    await build();
    const page = await inject('/');
    expect(page.status).toBe(401);
    expect(page.headers['www-authenticate']).toEqual(['Bearer realm="etcd-probe"', 'Basic realm="etcd-probe", charset="UTF-8"']);
    expect(page.body).toEqual({ error: 'UNAUTHORIZED', message: 'this route needs a bearer token (Authorization: Bearer <token>)' });
    expect(checkResponse('GET', '/', page)).toEqual([]);
    for (const d of DETAILS) expect(page.text).not.toContain(d);
    const fragment = await inject('/status/fragment');
    expect(fragment.status).toBe(401);
    expect(fragment.headers['www-authenticate']).toBe('Bearer realm="etcd-probe"');
    expect(checkResponse('GET', '/status/fragment', fragment)).toEqual([]);

    const withBearer = await inject('/', bearer);
    expect(withBearer.status).toBe(200);
    expect(withBearer.text).toContain('m-c');
    const basic = { authorization: `Basic ${Buffer.from(`oncall:${TOKEN}`).toString('base64')}` };
    expect((await inject('/', basic)).status).toBe(200);
    expect((await inject('/status/fragment', basic)).status).toBe(200);
    expect((await inject('/', { authorization: `Basic ${Buffer.from('oncall:guess').toString('base64')}` })).status).toBe(401);
  });

  it('stays open when ETCD_PROBE_AUTH_ROUTES leaves it out', async () => {
    await build({ ETCD_PROBE_AUTH_ROUTES: '/members,/alarms,/metrics' });
    expect((await inject('/')).status).toBe(200);
    expect((await inject('/status/fragment')).status).toBe(200);
    expect((await inject('/members')).status).toBe(401);
  });
});

describe('/healthz/etcd with a token set', () => {
  it('tells a caller without the token the status, policy and reason codes only, with the same status code', async () => {
    await build();
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const plain = await inject('/healthz/etcd', headers);
      expect(plain.status).toBe(200);
      expect(plain.body).toEqual({ status: 'degraded', policy: 'quorum', reasons: [{ code: 'MEMBER_UNREACHABLE', severity: 'degraded' }] });
      expect(checkResponse('GET', '/healthz/etcd', plain)).toEqual([]);
      for (const d of DETAILS) expect(plain.text).not.toContain(d);
      expect(plain.headers.vary).toBe('Accept, Authorization');
      expect(plain.headers['cache-control']).toMatch(/^max-age=\d+, stale-while-revalidate=\d+$/);
    }
    const strict = await inject('/healthz/etcd?policy=strict');
    expect(strict.status).toBe(503);
    expect(strict.body.policy).toBe('strict');
    const text = await inject('/healthz/etcd', { accept: 'text/plain' });
    expect(text.text).toBe('status degraded (policy quorum)\nreason MEMBER_UNREACHABLE (degraded)\nhealthz check passed\n');
    const head = await inject('/healthz/etcd', {}, 'HEAD');
    expect(head.status).toBe(200);
  });

  it('answers ?verbose and ?fresh without the token with 401, and everything with it, privately', async () => {
    await build();
    for (const url of ['/healthz/etcd?verbose', '/healthz/etcd?fresh=true', '/healthz/etcd?verbose=1&policy=strict']) {
      const refused = await inject(url);
      expect(refused.status, url).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="etcd-probe"');
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(checkResponse('GET', '/healthz/etcd', refused)).toEqual([]);
      expect((await inject(url, { authorization: 'Bearer wrong' })).headers['www-authenticate']).toBe('Bearer realm="etcd-probe", error="invalid_token"');
    }
    const full = await inject('/healthz/etcd', bearer);
    expect(full.status).toBe(200);
    expect(full.body.clusterId).toBe(CLUSTER);
    expect(full.body.reasons[0].member.name).toBe('m-c');
    expect(checkResponse('GET', '/healthz/etcd', full)).toEqual([]);
    expect(full.headers['cache-control']).toMatch(/^private, max-age=\d+, stale-while-revalidate=\d+$/);
    expect(full.headers.vary).toBe('Accept, Authorization');
    // The full answer and the summary are different bytes, so different ETags: a cache keeps them apart.
    expect(full.headers.etag).not.toBe((await inject('/healthz/etcd')).headers.etag);
    const verbose = await inject('/healthz/etcd?verbose', bearer);
    expect(verbose.status).toBe(200);
    expect(verbose.text).toContain('[-]member m-c failed');
    expect((await inject('/healthz/etcd?fresh=true', bearer)).status).toBe(200);
  });

  it('gives everything to everyone without a token file, as before', async () => {
    await build({}, false);
    const open = await inject('/healthz/etcd?verbose');
    expect(open.status).toBe(200);
    expect(open.text).toContain('m-c');
    expect(open.headers.vary).toBe('Accept');
    expect(open.headers['cache-control']).toMatch(/^max-age=\d+, stale-while-revalidate=\d+$/);
  });
});

describe('headers', () => {
  it('marks guarded answers private and varying by Authorization; 401s are never stored', async () => {
    await build();
    for (const url of ['/members', '/members/m-a', '/alarms', '/metrics', '/', '/status/fragment']) {
      const res = await inject(url, bearer);
      expect(res.status, url).toBe(200);
      // /metrics is never stored at all; the others are a round's answer, for this credential only.
      expect(res.headers['cache-control'], url).toMatch(url === '/metrics' ? /^no-store$/ : /^private, max-age=\d+, stale-while-revalidate=\d+$/);
      expect(res.headers.vary, url).toBe('Authorization');
      expect((await inject(url)).headers['cache-control'], url).toBe('no-store');
    }
  });

  it('sends nosniff on every answer, errors included, and no HSTS over plain HTTP', async () => {
    await build();
    const answers = [
      await inject('/livez'),
      await inject('/healthz/etcd'),
      await inject('/members'),
      await inject('/members', bearer),
      await inject('/healthz/etcd?policy=<b>x</b>'),
      await inject('/no/such/<script>'),
      await inject('/livez', { 'content-type': 'application/json' }, 'POST', JSON.stringify({ pad: 'x'.repeat(4096) })),
      await inject('/members/nobody', bearer),
      await inject('/members/%ZZ', bearer),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 200, 400, 404, 405, 404, 400]);
    for (const a of answers) {
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers['strict-transport-security']).toBeUndefined();
    }
  });
});

describe('a token file that goes bad', () => {
  it('fails closed (no token accepted, said in the log and a gauge), and recovers when the file is valid again', async () => {
    await build();
    const gauge = async () => /^etcd_probe_auth_token_usable (\d)$/m.exec(await (app as App).metrics.registry.metrics())?.[1];
    expect(await gauge()).toBe('1');
    expect((await inject('/members', bearer)).status).toBe(200);

    writeFileSync(tokenPath, '');
    const refused = await eventually(() => inject('/members', bearer), (r) => r.status === 401, 5000, 20);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="etcd-probe", error="invalid_token"');
    expect(refused.body.message).toBe("no bearer token is accepted now: the service's token file is unusable (its log says why)");
    expect(await gauge()).toBe('0');
    const [line] = logs.at('error');
    expect(line).toMatchObject({ credentials: 'auth-token', file: tokenPath, setting: 'ETCD_PROBE_AUTH_TOKEN_FILE' });
    expect(line?.msg).toBe(`cannot reload the bearer token: ETCD_PROBE_AUTH_TOKEN_FILE: ${tokenPath} is empty (it must hold the bearer token); no bearer token is accepted until the file is fixed`);
    // The load balancer's summary goes on; everything else needs a token that no one can have now.
    expect((await inject('/healthz/etcd')).status).toBe(200);
    expect((await inject('/healthz/etcd?verbose', bearer)).status).toBe(401);

    writeFileSync(tokenPath, `${TOKEN}\n`);
    expect((await eventually(() => inject('/members', bearer), (r) => r.status === 200, 5000, 20)).status).toBe(200);
    expect(await gauge()).toBe('1');
    expect(logs.lines.some((l) => l.msg === 'reloaded the bearer token')).toBe(true);
    expect(logs.raw).not.toContain(TOKEN);
  });
});
