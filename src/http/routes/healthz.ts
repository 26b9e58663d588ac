import type { FastifyInstance } from 'fastify';
import { POLICIES, type Policy } from '../../config/config.ts';
import type { Snapshot } from '../../probe/snapshot.ts';
import { healthzDocument, healthzSummaryDocument } from '../documents.ts';
import { renderHealthzSummaryText, renderHealthzText } from '../healthz-text.ts';
import { prefersText } from '../negotiate.ts';
import { httpStatusFor } from '../policy-status.ts';
import { JSON_TYPE, perRound, represent, TEXT_TYPE, type Representation } from '../representation.ts';
import { answerFromRound, type RouteSite } from '../route-deps.ts';
import { sendRepresentation } from '../send-representation.ts';
import { parseQuery, queryRules } from '../strict-query.ts';
import { verdictAudience, type Audience } from '../verdict-audience.ts';

const QUERY = queryRules('/healthz/etcd', { policy: POLICIES, fresh: 'flag', verbose: 'flag' });

// The representation keys, built once: a key made per request would be a new string to hash each time.
const KEYS = Object.fromEntries(
  POLICIES.map((p) => [p, { json: { full: `healthz ${p} json full`, summary: `healthz ${p} json summary` }, text: { full: `healthz ${p} text full`, summary: `healthz ${p} text summary` } }]),
) as Record<Policy, Record<'json' | 'text', Record<Audience, string>>>;

/** The /healthz/etcd answer of a round for a policy, format and audience, rendered once per round. */
export function healthzRepresentation(snapshot: Snapshot, policy: Policy, text: boolean, audience: Audience): Representation {
  return perRound(snapshot, KEYS[policy][text ? 'text' : 'json'][audience], () => {
    const status = httpStatusFor(snapshot.verdict.status, policy);
    const passed = status === 200;
    if (audience === 'summary') {
      return text
        ? represent(status, TEXT_TYPE, renderHealthzSummaryText(snapshot, policy, passed))
        : represent(status, JSON_TYPE, JSON.stringify(healthzSummaryDocument(snapshot, policy)));
    }
    return text ? represent(status, TEXT_TYPE, renderHealthzText(snapshot, policy, passed)) : represent(status, JSON_TYPE, JSON.stringify(healthzDocument(snapshot, policy)));
  });
}

/**
 * GET /healthz/etcd: the verdict, 200 or 503 by policy; JSON, or kube-style text with ?verbose or
 * Accept: text/plain. With a token file set (and the route not guarded whole), a caller without the
 * token gets the status, policy and reason codes only, and `?verbose` or `?fresh` need the token: a
 * load balancer's plain GET keeps working, nobody else learns hosts or forces rounds.
 */
export function healthzRoute(app: FastifyInstance, site: RouteSite): void {
  // The answer depends on Accept, and with a token file set on Authorization too.
  app.get(`${site.prefix}/healthz/etcd`, (request, reply) => {
    const deps = site.depsOf(request);
    const query = parseQuery(QUERY, request.query);
    const policy = query.policy ?? deps.config.policy;
    const audience = verdictAudience(deps.auth, request, reply, query);
    if (audience === null) return undefined;
    const text = query.verbose === true || prefersText(request.headers.accept);
    return answerFromRound(deps, '/healthz/etcd', request, reply, { fresh: query.fresh === true, stale: true }, (read) => {
      sendRepresentation(request, reply, healthzRepresentation(read.value, policy, text, audience));
    });
  });
}
