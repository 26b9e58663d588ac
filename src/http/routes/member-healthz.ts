import type { FastifyInstance } from 'fastify';
import { POLICIES } from '../../config/config.ts';
import { findMember, knownMembers } from '../../probe/find-member.ts';
import { ApiError } from '../api-error.ts';
import { memberHealthRepresentation } from '../member-healthz.ts';
import { prefersText } from '../negotiate.ts';
import { answerFromRound, type RouteSite } from '../route-deps.ts';
import { sendRepresentation } from '../send-representation.ts';
import { parseQuery, queryRules } from '../strict-query.ts';
import { verdictAudience } from '../verdict-audience.ts';

const QUERY = queryRules('/healthz/etcd/members/{idOrName}', { policy: POLICIES, fresh: 'flag', verbose: 'flag' });

/**
 * GET /healthz/etcd/members/{idOrName}: is this member fit to serve clients? 200 or 503, for a load
 * balancer's check of each backend server (HAProxy: `uri-lf /healthz/etcd/members/%[srv_name]`). The
 * same query, formats, caching and token rules as /healthz/etcd: a caller without the token (when one is
 * set and the route is not guarded whole) gets fit or not with the reason codes, and no member list in a
 * 404.
 */
export function memberHealthzRoute(app: FastifyInstance, site: RouteSite): void {
  app.get<{ Params: { idOrName: string } }>(`${site.prefix}/healthz/etcd/members/:idOrName`, (request, reply) => {
    const deps = site.depsOf(request);
    const query = parseQuery(QUERY, request.query);
    const policy = query.policy ?? deps.config.policy;
    const audience = verdictAudience(deps.auth, request, reply, query);
    if (audience === null) return undefined;
    const text = query.verbose === true || prefersText(request.headers.accept);
    return answerFromRound(deps, '/healthz/etcd/members/{idOrName}', request, reply, { fresh: query.fresh === true, stale: true }, (read) => {
      const { members } = read.value.view;
      const member = findMember(members, request.params.idOrName);
      if (!member) {
        if (members.length === 0) throw new ApiError('NO_MEMBER_REACHABLE', 'the membership is unknown: no etcd member answered');
        throw new ApiError('MEMBER_NOT_FOUND', audience === 'full' ? `no member has that ID or name; members: ${knownMembers(members)}` : 'no member has that ID or name');
      }
      sendRepresentation(request, reply, memberHealthRepresentation(read.value, member, policy, text, audience));
    });
  });
}
