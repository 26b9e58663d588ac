import type { FastifyInstance, FastifyReply } from 'fastify';
import { disruptionBudget } from '../../probe/disruption.ts';
import { historyReport } from '../../probe/history/history-report.ts';
import type { CacheRead } from '../../probe/round-cache.ts';
import type { Snapshot } from '../../probe/snapshot.ts';
import { readSnapshot, type RouteDeps, type RouteSite } from '../route-deps.ts';
import { FRAGMENT_CSP, STATUS_PAGE_CSP } from '../status-page/content-security-policy.ts';
import { statusPageModel } from '../status-page/page-model.ts';
import { FRAGMENT_PATH } from '../status-page/refresh-script.ts';
import { renderStatusFragment, renderStatusPage } from '../status-page/status-page.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

const PAGE_QUERY = queryRules('/', {});
const FRAGMENT_QUERY = queryRules(`/${FRAGMENT_PATH}`, {});

function htmlHeaders(reply: FastifyReply, csp: string): void {
  reply.type('text/html; charset=utf-8');
  reply.header('content-security-policy', csp);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
}

/**
 * GET / (the status page for people) and GET /status/fragment (its live part, which the page's script
 * swaps in every TTL). Both render the shared snapshot through the JSON routes' document builders and
 * answer 200 whatever the verdict: the page reports etcd's health, /healthz/etcd gates on it. Rendered
 * per request (the page says when to refresh, counted from now), so no ETag.
 */
export function statusPageRoutes(app: FastifyInstance, site: RouteSite): void {
  const model = (deps: RouteDeps, read: CacheRead<Snapshot>) => {
    const now = deps.now();
    const { view, verdict } = read.value;
    return statusPageModel(read, deps.config, now, {
      history: historyReport(deps.history, { since: null, memberId: null }, now),
      budget: disruptionBudget(view, verdict, deps.thresholds, now),
    });
  };
  app.get(`${site.prefix}/`, async (request, reply) => {
    const deps = site.depsOf(request);
    parseQuery(PAGE_QUERY, request.query);
    const read = await readSnapshot(deps, '/', request, reply);
    htmlHeaders(reply, STATUS_PAGE_CSP);
    // A fleet cluster's page sits two segments below the service's routes.
    return renderStatusPage(model(deps, read), site.prefix === '' ? '' : '../../').markup;
  });
  app.get(`${site.prefix}/${FRAGMENT_PATH}`, async (request, reply) => {
    const deps = site.depsOf(request);
    parseQuery(FRAGMENT_QUERY, request.query);
    const read = await readSnapshot(deps, `/${FRAGMENT_PATH}`, request, reply);
    htmlHeaders(reply, FRAGMENT_CSP);
    return renderStatusFragment(model(deps, read)).markup;
  });
}
