import type { FastifyInstance } from 'fastify';
import type { Thresholds } from '../../probe/member-checks.ts';
import { DISRUPTION_ACTIONS, disruptionBudget, project } from '../../probe/disruption.ts';
import { findMember, knownMembers } from '../../probe/find-member.ts';
import type { Snapshot } from '../../probe/snapshot.ts';
import { ApiError } from '../api-error.ts';
import { disruptionDocument } from '../disruption-document.ts';
import { freshness } from '../documents.ts';
import { JSON_TYPE, perRound, represent, type Representation } from '../representation.ts';
import { answerFromRound, type RouteSite } from '../route-deps.ts';
import { sendRepresentation } from '../send-representation.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

const BUDGET_QUERY = queryRules('/disruption', {});
const MEMBER_QUERY = queryRules('/disruption/{member}', { action: DISRUPTION_ACTIONS });

// Projections are judged at the round's own time, as the round's verdict was: the answer is the round's,
// the same bytes for every request that reads it.

function budgetRepresentation(snapshot: Snapshot, thresholds: Thresholds): Representation {
  return perRound(snapshot, 'disruption', () => {
    const budget = disruptionBudget(snapshot.view, snapshot.verdict, thresholds, snapshot.checkedAt);
    return represent(200, JSON_TYPE, JSON.stringify(disruptionDocument(snapshot, budget)));
  });
}

/**
 * GET /disruption and GET /disruption/{member}?action=stop|remove: may a member go down (or leave) now?
 * A yes permits stopping a member, so these never answer from a round past its TTL: where the verdict
 * routes answer stale while the next round runs, these wait for it (up to the etcd call timeout).
 */
export function disruptionRoutes(app: FastifyInstance, site: RouteSite): void {
  app.get(`${site.prefix}/disruption`, (request, reply) => {
    const deps = site.depsOf(request);
    parseQuery(BUDGET_QUERY, request.query);
    return answerFromRound(deps, '/disruption', request, reply, { fresh: false, stale: false }, (read) => {
      sendRepresentation(request, reply, budgetRepresentation(read.value, deps.thresholds));
    });
  });

  app.get<{ Params: { member: string } }>(`${site.prefix}/disruption/:member`, (request, reply) => {
    const deps = site.depsOf(request);
    const action = parseQuery(MEMBER_QUERY, request.query).action ?? 'stop';
    return answerFromRound(deps, '/disruption/{member}', request, reply, { fresh: false, stale: false }, (read) => {
      const snapshot = read.value;
      const { view, verdict } = snapshot;
      const member = findMember(view.members.filter((m) => m.listed), request.params.member);
      if (!member) throw new ApiError('MEMBER_NOT_FOUND', `no member has that ID or name; members: ${knownMembers(view.members)}`);
      const representation = perRound(snapshot, `disruption ${member.id} ${action}`, () => {
        const projection = project(view, verdict, member, action, deps.thresholds, snapshot.checkedAt);
        // 409: the cluster is fine, but not with this member gone: the request conflicts with its state.
        const body = { member: { id: member.id, name: member.name }, action, ...projection, ...freshness(snapshot) };
        return represent(projection.safe ? 200 : 409, JSON_TYPE, JSON.stringify(body));
      });
      sendRepresentation(request, reply, representation);
    });
  });
}
