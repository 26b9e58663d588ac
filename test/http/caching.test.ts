import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from '../helpers/log-sink.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { switchableSource } from '../helpers/scripted-source.ts';
import { round, three } from '../probe/observation-builders.ts';

// Cache-Control, Age, ETag, If-None-Match and Cache-Status on the probe routes (issue 12), over a
// scripted source and a clock the tests move. The TTL is 5 s.

const T0 = 1_800_000_000_000;
let app: App | undefined;
let clock = T0;

async function build(observations = round(three()).endpoints) {
  clock = T0;
  const result = loadConfig({ env: { ETCD_PROBE_CACHE_TTL: '5s' }, argv: [], now: new Date(T0) });
  if (!result.ok) throw new Error('bad test config');
  const source = switchableSource(observations);
  app = await buildApp({ config: result.config, tls: result.tls, logger: createLogger('warn', new LogSink()), source, now: () => clock });
  return { app, source };
}

afterEach(async () => {
  await app?.server.close();
  app = undefined;
});

async function request(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const res = await (app as App).server.inject({ method, url, headers });
  const contentType = String(res.headers['content-type'] ?? '');
  const body = contentType.startsWith('application/json') && res.body !== '' ? res.json() : res.body;
  return { status: res.statusCode, contentType, body, text: res.body, headers: res.headers };
}

const etagOf = async (url: string, headers: Record<string, string> = {}) => String((await request(url, headers)).headers.etag);

describe('Cache-Control and Age', () => {
  it('say the same thing: max-age is the whole TTL, Age the seconds since the round finished', async () => {
    await build();
    const first = await request('/healthz/etcd');
    expect(first.headers['cache-control']).toBe('max-age=5, stale-while-revalidate=2');
    expect(first.headers.age).toBe('0');
    expect(first.headers['cache-status']).toBe('etcd-probe; fwd=miss');

    clock += 2150;
    const later = await request('/healthz/etcd');
    // RFC 9111 4.2: fresh while Age < max-age, so 5 - 2 = 3 s more, as the service's own cache keeps it.
    expect(later.headers['cache-control']).toBe('max-age=5, stale-while-revalidate=2');
    expect(later.headers.age).toBe('2');
    expect(later.headers['cache-status']).toBe('etcd-probe; hit');
    expect(later.text).toBe(first.text);
    expect(later.headers.etag).toBe(first.headers.etag);
    expect(checkResponse('GET', '/healthz/etcd', later)).toEqual([]);

    // Past the TTL (5 s) but within TTL + timeout (2 s): answered at once from the same round, marked
    // stale, while the next round runs behind it.
    clock += 2900;
    const stale = await request('/healthz/etcd');
    expect(stale.headers.age).toBe('5');
    expect(stale.headers['cache-status']).toBe('etcd-probe; hit; ttl=-1; detail=stale-while-revalidate');
    expect(stale.text).toBe(first.text);
    expect(checkResponse('GET', '/healthz/etcd', stale)).toEqual([]);
    await (app as App).cache.settle();
    const next = await request('/healthz/etcd');
    expect(next.headers.age).toBe('0');
    expect(next.headers['cache-status']).toBe('etcd-probe; hit');
    expect(next.body.checkedAt).toBe(new Date(T0 + 5050).toISOString());

    // Older than TTL + timeout: never answered, the request waits for a new round.
    clock += 7000;
    const waited = await request('/healthz/etcd');
    expect(waited.headers['cache-status']).toBe('etcd-probe; fwd=miss');
    expect(waited.body.checkedAt).toBe(new Date(T0 + 12_050).toISOString());
  });

  it('never answers /disruption from a round past its TTL: it waits for the next', async () => {
    await build();
    await request('/healthz/etcd');
    clock += 5500;
    const res = await request('/disruption');
    expect(res.headers['cache-status']).toBe('etcd-probe; fwd=miss');
    // Nor lets a cache in front serve it stale: no stale-while-revalidate.
    expect(res.headers['cache-control']).toBe('max-age=5');
    expect(res.headers.age).toBe('0');
    expect(checkResponse('GET', '/disruption', res)).toEqual([]);
  });

  it('marks a forced round (?fresh) as fwd=request', async () => {
    await build();
    await request('/healthz/etcd');
    clock += 1500;
    expect((await request('/healthz/etcd?fresh')).headers['cache-status']).toBe('etcd-probe; fwd=request');
    expect((await request('/members?fresh=1')).headers['cache-status']).toBe('etcd-probe; hit');
  });

  it('never puts the age of the answer in the body: the bytes are the round\'s', async () => {
    await build();
    const first = await request('/members');
    clock += 3000;
    const later = await request('/members');
    expect(later.text).toBe(first.text);
    for (const body of [first.body, (await request('/healthz/etcd')).body, (await request('/alarms')).body, (await request('/disruption')).body]) {
      expect(Object.keys(body)).not.toContain('ageSeconds');
      expect(Object.keys(body)).not.toContain('cached');
    }
  });
});

describe('ETag and If-None-Match', () => {
  it('gives each representation of a round its own tag: policy, JSON or text', async () => {
    await build();
    const tags = [
      await etagOf('/healthz/etcd'),
      await etagOf('/healthz/etcd?policy=strict'),
      await etagOf('/healthz/etcd', { accept: 'text/plain' }),
      await etagOf('/healthz/etcd?policy=strict&verbose'),
      await etagOf('/members'),
      await etagOf('/members/m-a'),
      await etagOf('/members/m-b'),
      await etagOf('/alarms'),
      await etagOf('/disruption'),
      await etagOf('/disruption/m-b'),
      await etagOf('/disruption/m-b?action=remove'),
    ];
    expect(new Set(tags).size).toBe(tags.length);
    for (const tag of tags) expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    // ?verbose and Accept: text/plain ask for the same bytes.
    expect(await etagOf('/healthz/etcd?verbose')).toBe(tags[2]);
  });

  it('answers 304 with the headers and no body when If-None-Match names the current tag', async () => {
    await build();
    for (const [url, template] of [
      ['/healthz/etcd', '/healthz/etcd'],
      ['/members', '/members'],
      ['/members/m-a', '/members/{idOrName}'],
      ['/alarms', '/alarms'],
      ['/disruption', '/disruption'],
      ['/disruption/m-b', '/disruption/{member}'],
      ['/openapi.yaml', '/openapi.yaml'],
    ] as const) {
      const tag = await etagOf(url);
      clock += 500;
      for (const header of [tag, `W/${tag}`, `"nope", ${tag}`, '*']) {
        const res = await request(url, { 'if-none-match': header });
        expect(res.status, `${url} ${header}`).toBe(304);
        expect(res.text).toBe('');
        expect(res.headers.etag).toBe(tag);
        expect(checkResponse('GET', template, res), url).toEqual([]);
      }
      expect((await request(url, { 'if-none-match': tag }, 'HEAD')).status).toBe(304);
      expect((await request(url, { 'if-none-match': '"other"' })).status).toBe(200);
    }
    const cached = await request('/healthz/etcd', { 'if-none-match': await etagOf('/healthz/etcd') });
    expect(cached.headers['cache-control']).toBe('max-age=5, stale-while-revalidate=2');
    expect(cached.headers.age).toBe('3');
  });

  it('never answers 304 for a 503 or a 409: a failure is always sent whole', async () => {
    // m-c is down: the cluster is degraded (503 under strict), and stopping m-a would lose quorum (409).
    await build(round(three({ c: { state: 'unreachable' } })).endpoints);
    const strict = await request('/healthz/etcd?policy=strict');
    expect(strict.status).toBe(503);
    expect(strict.headers.etag).toBeDefined();
    const again = await request('/healthz/etcd?policy=strict', { 'if-none-match': String(strict.headers.etag) });
    expect(again.status).toBe(503);
    expect(again.text).toBe(strict.text);
    const unsafe = await request('/disruption/m-a');
    expect(unsafe.status).toBe(409);
    expect((await request('/disruption/m-a', { 'if-none-match': String(unsafe.headers.etag) })).status).toBe(409);
  });

  it('changes the tag when the answer changes, and keeps it across rounds when the bytes do not', async () => {
    const { source } = await build();
    const json = await etagOf('/healthz/etcd');
    const text = await etagOf('/healthz/etcd', { accept: 'text/plain' });
    clock += 8000;
    // A new round of the same cluster: the JSON names its round (checkedAt), the text lines do not.
    expect(await etagOf('/healthz/etcd')).not.toBe(json);
    expect((await request('/healthz/etcd', { accept: 'text/plain', 'if-none-match': text })).status).toBe(304);

    source.set(round(three({ c: { state: 'unreachable' } })).endpoints);
    clock += 8000;
    const degraded = await request('/healthz/etcd', { accept: 'text/plain', 'if-none-match': text });
    expect(degraded.status).toBe(200);
    expect(degraded.text).toContain('[-]member m-c failed');
    expect(degraded.headers.etag).not.toBe(text);
  });
});
