import type { FastifyInstance } from 'fastify';
import { findMember, knownMembers } from '../../probe/find-member.ts';
import { ApiError } from '../api-error.ts';
import { memberDocument, membersDocument } from '../documents.ts';
import { flag, readSnapshot, type RouteDeps } from '../route-deps.ts';

const FRESH_QUERY = { type: 'object', properties: { fresh: { type: 'string' } } } as const;

/** GET /members and GET /members/{idOrName}: every member with its facts, or one of them. */
export function membersRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.get<{ Querystring: { fresh?: string } }>('/members', { schema: { querystring: FRESH_QUERY } }, async (request, reply) => {
    const read = await readSnapshot(deps, '/members', reply, flag(request.query.fresh));
    const anyAnswered = read.value.view.endpoints.some((e) => e.reachable);
    const document = membersDocument(read, deps.now());
    if (anyAnswered) return document;
    reply.code(503);
    const why = document.endpoints.map((e) => `${e.endpoint}: ${e.error?.message ?? 'no answer'}`).join('; ');
    return { error: 'NO_MEMBER_REACHABLE', message: `no etcd member answered (${why})`, ...document };
  });

  app.get<{ Params: { idOrName: string }; Querystring: { fresh?: string } }>(
    '/members/:idOrName',
    { schema: { querystring: FRESH_QUERY } },
    async (request, reply) => {
      const read = await readSnapshot(deps, '/members/{idOrName}', reply, flag(request.query.fresh));
      const { members } = read.value.view;
      const member = findMember(members, request.params.idOrName);
      if (member) return memberDocument(member, read.value);
      if (members.length === 0) throw new ApiError('NO_MEMBER_REACHABLE', 'the membership is unknown: no etcd member answered');
      throw new ApiError('MEMBER_NOT_FOUND', `no member has that ID or name; members: ${knownMembers(members)}`);
    },
  );
}
