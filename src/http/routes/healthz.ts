import type { FastifyInstance } from 'fastify';
import { POLICIES, type Policy } from '../../config/config.ts';
import { refuseUnauthenticated } from '../bearer-guard.ts';
import { healthzDocument, healthzSummaryDocument } from '../documents.ts';
import { renderHealthzSummaryText, renderHealthzText } from '../healthz-text.ts';
import { httpStatusFor } from '../policy-status.ts';
import { prefersText } from '../negotiate.ts';
import { credentialOf, markCredentialed, varyByAuthorization } from '../response-headers.ts';
import { flag, readSnapshot, type RouteDeps } from '../route-deps.ts';

interface HealthzQuery {
  policy?: Policy;
  fresh?: string;
  verbose?: string;
}

/**
 * GET /healthz/etcd: the verdict, 200 or 503 by policy; JSON, or kube-style text with ?verbose or
 * Accept: text/plain. With a token file set (and the route not guarded whole), a caller without the
 * token gets the status, policy and reason codes only, and `?verbose` or `?fresh` need the token: a
 * load balancer's plain GET keeps working, nobody else learns hosts or forces rounds.
 */
export function healthzRoute(app: FastifyInstance, deps: RouteDeps): void {
  app.get<{ Querystring: HealthzQuery }>(
    '/healthz/etcd',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            policy: { type: 'string', enum: [...POLICIES] },
            fresh: { type: 'string' },
            verbose: { type: 'string' },
          },
        },
      },
    },
    async (request, reply) => {
      const policy = request.query.policy ?? deps.config.policy;
      let summary = false;
      if (deps.auth && credentialOf(request) !== 'token') {
        varyByAuthorization(reply);
        const check = deps.auth.check(request.headers.authorization);
        if (check === 'ok') markCredentialed(request, 'token');
        else if (flag(request.query.verbose) || flag(request.query.fresh)) return refuseUnauthenticated(reply, check);
        else summary = true;
      }
      const read = await readSnapshot(deps, '/healthz/etcd', reply, flag(request.query.fresh));
      const code = httpStatusFor(read.value.verdict.status, policy);
      reply.code(code);
      if (summary) {
        if (!prefersText(request.headers.accept)) return healthzSummaryDocument(read.value, policy);
        reply.type('text/plain; charset=utf-8');
        return renderHealthzSummaryText(read.value, policy, code === 200);
      }
      if (flag(request.query.verbose) || prefersText(request.headers.accept)) {
        reply.type('text/plain; charset=utf-8');
        return renderHealthzText(read.value, policy, code === 200);
      }
      return healthzDocument(read, policy, deps.now());
    },
  );
}
