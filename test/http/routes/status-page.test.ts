import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../../src/http/lifecycle.ts';
import { rootSite, type RouteDeps } from '../../../src/http/route-deps.ts';
import { statusPageRoutes } from '../../../src/http/routes/status-page.ts';
import { FRAGMENT_CSP, STATUS_PAGE_CSP } from '../../../src/http/status-page/content-security-policy.ts';
import { ProbeMetrics } from '../../../src/metrics/probe-metrics.ts';
import { RoundCache } from '../../../src/probe/round-cache.ts';
import type { Snapshot } from '../../../src/probe/snapshot.ts';
import { checkResponse } from '../../helpers/openapi.ts';
import { three } from '../../probe/observation-builders.ts';
import { RoundHistory } from '../../../src/probe/history/round-history.ts';
import { TEST_THRESHOLDS } from '../../probe/snapshot-builder.ts';
import { CHECKED_AT, QUOTA, snapshotOf } from '../status-page/snapshot-builder.ts';

let app: FastifyInstance | undefined;

function build(snapshot: Snapshot, clock = { now: CHECKED_AT }): { app: FastifyInstance; metrics: ProbeMetrics; rounds: () => number } {
  let rounds = 0;
  const now = () => clock.now;
  const cache = new RoundCache<Snapshot>({
    load: async () => {
      rounds++;
      return snapshot;
    },
    ttlMs: 5000,
    minForcedIntervalMs: 1000,
    now,
  });
  const metrics = new ProbeMetrics({ quotaBytes: QUOTA });
  const deps: RouteDeps = {
    cache,
    metrics,
    config: { policy: 'quorum', cacheTtlMs: 5000, timeoutMs: 2000, quotaBytes: QUOTA },
    now,
    lifecycle: new Lifecycle(),
    auth: null,
    history: new RoundHistory({ windowMs: 3_600_000, maxBytes: 2 ** 20, checksMs: 0 }),
    thresholds: TEST_THRESHOLDS,
  };
  app = Fastify();
  statusPageRoutes(app, rootSite(deps));
  return { app, metrics, rounds: () => rounds };
}

afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('GET / and GET /status/fragment', () => {
  it('serves the page as documented HTML with its CSP, cache headers and hardening headers, 200 whatever the verdict', async () => {
    const { app } = build(snapshotOf(three({ b: { state: 'unreachable' }, c: { state: 'unreachable' } })));
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(STATUS_PAGE_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('max-age=5, stale-while-revalidate=2');
    expect(res.body).toContain('verdict-unhealthy');
    expect(checkResponse('GET', '/', { status: 200, contentType: String(res.headers['content-type']), body: res.body })).toEqual([]);
  });

  it('answers HEAD with the headers and no body', async () => {
    const { app } = build(snapshotOf(three()));
    const res = await app.inject({ method: 'HEAD', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe('');
  });

  it('serves the fragment that the page swaps in, from the same cached round', async () => {
    const { app, rounds } = build(snapshotOf(three()));
    const pageRes = await app.inject({ method: 'GET', url: '/' });
    const res = await app.inject({ method: 'GET', url: '/status/fragment' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(FRAGMENT_CSP);
    expect(res.body).toMatch(/^<main id="status" data-status="healthy"/);
    expect(res.body).not.toContain('<script');
    expect(pageRes.body).toContain(res.body);
    expect(rounds()).toBe(1);
    expect(checkResponse('GET', '/status/fragment', { status: 200, contentType: String(res.headers['content-type']), body: res.body })).toEqual([]);
  });

  it('counts its requests by route in the metrics, like the JSON routes', async () => {
    const { app, metrics } = build(snapshotOf(three()));
    await app.inject({ method: 'GET', url: '/' });
    await app.inject({ method: 'GET', url: '/status/fragment' });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/route="\/",cache="miss"} 1/);
    expect(text).toMatch(/route="\/status\/fragment",cache="hit"} 1/);
  });
});
