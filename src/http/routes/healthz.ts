import type { FastifyInstance } from 'fastify';
import { POLICIES, type Policy } from '../../config/config.ts';
import { httpStatusFor } from '../policy-status.ts';
import { healthzDocument } from '../documents.ts';
import { renderHealthzText } from '../healthz-text.ts';
import { prefersText } from '../negotiate.ts';
import { flag, readSnapshot, type RouteDeps } from '../route-deps.ts';

interface HealthzQuery {
  policy?: Policy;
  fresh?: string;
  verbose?: string;
}

/** GET /healthz/etcd: the verdict, 200 or 503 by policy; JSON, or kube-style text with ?verbose or Accept: text/plain. */
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
      const read = await readSnapshot(deps, '/healthz/etcd', reply, flag(request.query.fresh));
      const code = httpStatusFor(read.value.verdict.status, policy);
      reply.code(code);
      if (flag(request.query.verbose) || prefersText(request.headers.accept)) {
        reply.type('text/plain; charset=utf-8');
        return renderHealthzText(read.value, policy, code === 200);
      }
      return healthzDocument(read, policy, deps.now());
    },
  );
}
