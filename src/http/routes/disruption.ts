import type { FastifyInstance } from 'fastify';
import { DISRUPTION_ACTIONS, disruptionBudget, project, type DisruptionAction } from '../../probe/disruption.ts';
import { findMember, knownMembers } from '../../probe/find-member.ts';
import { ApiError } from '../api-error.ts';
import { disruptionDocument } from '../disruption-document.ts';
import { freshness } from '../documents.ts';
import { readSnapshot, type RouteDeps } from '../route-deps.ts';

/** GET /disruption and GET /disruption/{member}?action=stop|remove: may a member go down (or leave) now? */
export function disruptionRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.get('/disruption', async (_request, reply) => {
    const read = await readSnapshot(deps, '/disruption', reply);
    const now = deps.now();
    return disruptionDocument(read, disruptionBudget(read.value.view, read.value.verdict, deps.thresholds, now), now);
  });

  app.get<{ Params: { member: string }; Querystring: { action?: string } }>(
    '/disruption/:member',
    { schema: { querystring: { type: 'object', properties: { action: { type: 'string' } } } } },
    async (request, reply) => {
      const raw = request.query.action ?? 'stop';
      if (!(DISRUPTION_ACTIONS as readonly string[]).includes(raw)) {
        throw new ApiError('INVALID_PARAMETER', `action: must be one of ${DISRUPTION_ACTIONS.join(', ')}`);
      }
      const action = raw as DisruptionAction;
      const read = await readSnapshot(deps, '/disruption/{member}', reply);
      const { view, verdict } = read.value;
      const member = findMember(view.members.filter((m) => m.listed), request.params.member);
      if (!member) throw new ApiError('MEMBER_NOT_FOUND', `no member has that ID or name; members: ${knownMembers(view.members)}`);
      const now = deps.now();
      const projection = project(view, verdict, member, action, deps.thresholds, now);
      // 409: the cluster is fine, but not with this member gone: the request conflicts with its state.
      reply.code(projection.safe ? 200 : 409);
      return { member: { id: member.id, name: member.name }, action, ...projection, ...freshness(read, now) };
    },
  );
}
