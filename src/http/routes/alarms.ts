import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api-error.ts';
import { alarmsDocument } from '../documents.ts';
import { JSON_TYPE, perRound, represent } from '../representation.ts';
import { answerFromRound, type RouteSite } from '../route-deps.ts';
import { sendRepresentation } from '../send-representation.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

const QUERY = queryRules('/alarms', { fresh: 'flag' });

/** GET /alarms: the active alarms and where they were read (the alarm list, or the members' Status). */
export function alarmsRoute(app: FastifyInstance, site: RouteSite): void {
  app.get(`${site.prefix}/alarms`, (request, reply) => {
    const deps = site.depsOf(request);
    const query = parseQuery(QUERY, request.query);
    return answerFromRound(deps, '/alarms', request, reply, { fresh: query.fresh === true, stale: true }, (read) => {
      const snapshot = read.value;
      const { view } = snapshot;
      if (view.alarmSource === null) {
        const why = view.alarmListError ? ` (alarm list: ${view.alarmListError.message})` : '';
        throw new ApiError('ALARMS_UNKNOWN', `neither the alarm list nor any member's Status answered${why}`);
      }
      sendRepresentation(request, reply, perRound(snapshot, 'alarms', () => represent(200, JSON_TYPE, JSON.stringify(alarmsDocument(snapshot)))));
    });
  });
}
