import type { FastifyInstance } from 'fastify';
import { findMember, knownMembers } from '../../probe/find-member.ts';
import type { Snapshot } from '../../probe/snapshot.ts';
import { ApiError } from '../api-error.ts';
import { memberDocument, membersDocument } from '../documents.ts';
import { JSON_TYPE, perRound, represent, type Representation } from '../representation.ts';
import { answerFromRound, type RouteSite } from '../route-deps.ts';
import { sendRepresentation } from '../send-representation.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

const MEMBERS_QUERY = queryRules('/members', { fresh: 'flag' });
const MEMBER_QUERY = queryRules('/members/{idOrName}', { fresh: 'flag' });

/** The /members answer of a round: 200, or 503 saying why per endpoint when no member answered. */
function membersRepresentation(snapshot: Snapshot): Representation {
  return perRound(snapshot, 'members', () => {
    const document = membersDocument(snapshot);
    if (snapshot.view.endpoints.some((e) => e.reachable)) return represent(200, JSON_TYPE, JSON.stringify(document));
    const why = document.endpoints.map((e) => `${e.endpoint}: ${e.error?.message ?? 'no answer'}`).join('; ');
    return represent(503, JSON_TYPE, JSON.stringify({ error: 'NO_MEMBER_REACHABLE', message: `no etcd member answered (${why})`, ...document }));
  });
}

/** GET /members and GET /members/{idOrName}: every member with its facts, or one of them. */
export function membersRoutes(app: FastifyInstance, site: RouteSite): void {
  app.get(`${site.prefix}/members`, (request, reply) => {
    const deps = site.depsOf(request);
    const query = parseQuery(MEMBERS_QUERY, request.query);
    return answerFromRound(deps, '/members', request, reply, { fresh: query.fresh === true, stale: true }, (read) => {
      sendRepresentation(request, reply, membersRepresentation(read.value));
    });
  });

  app.get<{ Params: { idOrName: string } }>(`${site.prefix}/members/:idOrName`, (request, reply) => {
    const deps = site.depsOf(request);
    const query = parseQuery(MEMBER_QUERY, request.query);
    return answerFromRound(deps, '/members/{idOrName}', request, reply, { fresh: query.fresh === true, stale: true }, (read) => {
      const snapshot = read.value;
      const { members } = snapshot.view;
      const member = findMember(members, request.params.idOrName);
      if (!member) {
        if (members.length === 0) throw new ApiError('NO_MEMBER_REACHABLE', 'the membership is unknown: no etcd member answered');
        throw new ApiError('MEMBER_NOT_FOUND', `no member has that ID or name; members: ${knownMembers(members)}`);
      }
      sendRepresentation(request, reply, perRound(snapshot, `member ${member.id}`, () => represent(200, JSON_TYPE, JSON.stringify(memberDocument(member, snapshot)))));
    });
  });
}
