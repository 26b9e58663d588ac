import type { FastifyReply, FastifyRequest } from 'fastify';
import { refuseUnauthenticated, type BearerAuth } from './bearer-guard.ts';
import { credentialOf, markCredentialed } from './response-headers.ts';

/** Who a verdict answer is for: everyone (`full`), or a caller without the token when one is set (`summary`). */
export type Audience = 'full' | 'summary';

/**
 * Who a verdict route (`/healthz/etcd` and its per-member route) answers, with the token rules they share:
 * with a token file set and the route not guarded whole, a caller without the token gets the summary,
 * and `?verbose` or `?fresh` need the token (refused here: null, the 401 sent). Sets `Vary` for what the
 * answer depends on.
 */
export function verdictAudience(
  auth: BearerAuth | null,
  request: FastifyRequest,
  reply: FastifyReply,
  query: { readonly verbose?: boolean; readonly fresh?: boolean },
): Audience | null {
  let audience: Audience = 'full';
  if (auth && credentialOf(request) !== 'token') {
    const check = auth.check(request.headers.authorization);
    if (check === 'ok') markCredentialed(request, 'token');
    else if (query.verbose === true || query.fresh === true) {
      refuseUnauthenticated(request, reply, check);
      return null;
    } else audience = 'summary';
  }
  reply.header('vary', auth ? 'Accept, Authorization' : 'Accept');
  return audience;
}
