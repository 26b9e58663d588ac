import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api-error.ts';
import { alarmsDocument } from '../documents.ts';
import { flag, readSnapshot, type RouteDeps } from '../route-deps.ts';

/** GET /alarms: the active alarms and where they were read (the alarm list, or the members' Status). */
export function alarmsRoute(app: FastifyInstance, deps: RouteDeps): void {
  app.get<{ Querystring: { fresh?: string } }>(
    '/alarms',
    { schema: { querystring: { type: 'object', properties: { fresh: { type: 'string' } } } } },
    async (request, reply) => {
      const read = await readSnapshot(deps, '/alarms', reply, flag(request.query.fresh));
      const { view } = read.value;
      if (view.alarmSource === null) {
        const why = view.alarmListError ? ` (alarm list: ${view.alarmListError.message})` : '';
        throw new ApiError('ALARMS_UNKNOWN', `neither the alarm list nor any member's Status answered${why}`);
      }
      return alarmsDocument(read, deps.now());
    },
  );
}
