import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../../src/app.ts';
import { loadConfig } from '../../../src/cli/load-config.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { LogSink } from '../../helpers/log-sink.ts';
import { checkResponse } from '../../helpers/openapi.ts';
import { scriptedSource } from '../../helpers/scripted-source.ts';
import { testTempDir } from '../../helpers/temp-dir.ts';
import { CLUSTER, round, three } from '../../probe/observation-builders.ts';

// GET /healthz/etcd/members/{idOrName} over a scripted round in which m-c is down: the status per member
// and policy, the formats, HEAD, and what a caller without the token learns. (The rules themselves:
// test/probe/member-fitness.test.ts; with real etcd and HAProxy: test/integration/haproxy.test.ts.)

const TOKEN = 'lb-token.3';
const TEMPLATE = '/healthz/etcd/members/{idOrName}';
let app: App | undefined;

async function build(withToken: boolean): Promise<App> {
  const env: Record<string, string> = { ETCD_PROBE_LISTEN: '127.0.0.1:0' };
  if (withToken) {
    const file = join(testTempDir('etcd-probe-member-healthz-'), 'token');
    writeFileSync(file, `${TOKEN}\n`);
    env.ETCD_PROBE_AUTH_TOKEN_FILE = file;
  }
  const result = loadConfig({ env, argv: [], now: new Date() });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
  const source = scriptedSource(round(three({ c: { state: 'unreachable' } })).endpoints);
  app = await buildApp({ config: result.config, tls: result.tls, auth: result.auth, logger: createLogger('info', new LogSink()), source, reloadIntervalMs: 50 });
  return app;
}

afterEach(async () => {
  await app?.server.close();
  app = undefined;
});

async function inject(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const res = await (app as App).server.inject({ method, url, headers });
  const contentType = String(res.headers['content-type'] ?? '');
  return { status: res.statusCode, contentType, body: contentType.startsWith('application/json') && res.body ? res.json() : res.body, text: res.body, headers: res.headers };
}

describe('GET /healthz/etcd/members/{idOrName}', () => {
  it('answers 200 for a member that serves and 503 for the one that is down, by name or ID, under both policies', async () => {
    await build(false);
    const statuses: Record<string, number> = {};
    for (const key of ['m-a', 'b', 'm-c', 'c']) {
      for (const policy of ['quorum', 'strict']) {
        const answer = await inject(`/healthz/etcd/members/${key}?policy=${policy}`);
        expect(checkResponse('GET', TEMPLATE, answer)).toEqual([]);
        statuses[`${key} ${policy}`] = answer.status;
      }
    }
    expect(statuses).toEqual({ 'm-a quorum': 200, 'm-a strict': 200, 'b quorum': 200, 'b strict': 200, 'm-c quorum': 503, 'm-c strict': 503, 'c quorum': 503, 'c strict': 503 });
    const down = await inject('/healthz/etcd/members/m-c');
    expect(down.body).toMatchObject({ member: { id: 'c', name: 'm-c' }, fit: false, policy: 'quorum', why: 'm-c did not answer this round', status: 'degraded' });
    expect(down.body.reasons.map((r: { code: string }) => r.code)).toEqual(['MEMBER_UNREACHABLE']);
  });

  it('answers HEAD with the same status and no body, text with ?verbose, and 404 for an unknown member', async () => {
    await build(false);
    const head = await inject('/healthz/etcd/members/m-c', {}, 'HEAD');
    expect([head.status, head.text]).toEqual([503, '']);
    const text = await inject('/healthz/etcd/members/m-a?verbose');
    expect(text.text).toBe('[+]member m-a serves clients\nstatus degraded (policy quorum)\nhealthz check passed\n');
    const unknown = await inject('/healthz/etcd/members/m-z');
    expect(checkResponse('GET', TEMPLATE, unknown)).toEqual([]);
    expect([unknown.status, unknown.body.error, unknown.body.message]).toEqual([404, 'MEMBER_NOT_FOUND', expect.stringContaining('m-a (a)')]);
  });

  it('tells a caller without the token fit or not and the reason codes, no names or hosts, and no member list in a 404', async () => {
    await build(true);
    const summary = await inject('/healthz/etcd/members/m-c');
    expect(checkResponse('GET', TEMPLATE, summary)).toEqual([]);
    expect([summary.status, summary.body]).toEqual([503, { fit: false, policy: 'quorum', reasons: [{ code: 'MEMBER_UNREACHABLE', severity: 'degraded' }] }]);
    expect(summary.headers.vary).toBe('Accept, Authorization');
    const unknown = await inject('/healthz/etcd/members/m-z');
    expect([unknown.status, unknown.body.message]).toEqual([404, 'no member has that ID or name']);
    for (const answer of [summary, unknown, await inject('/healthz/etcd/members/m-c', { accept: 'text/plain' })]) {
      for (const detail of ['m-a', 'm-b', 'https://', CLUSTER]) expect(answer.text).not.toContain(detail);
    }
    expect((await inject('/healthz/etcd/members/m-c?verbose')).status).toBe(401);
    const full = await inject('/healthz/etcd/members/m-c', { authorization: `Bearer ${TOKEN}` });
    expect([full.status, full.body.why]).toEqual([503, 'm-c did not answer this round']);
  });
});
