import type { FastifyInstance } from 'fastify';
import { parseDuration } from '../../config/value-parsers.ts';
import { findMember, knownMembers } from '../../probe/find-member.ts';
import { historyReport } from '../../probe/history/history-report.ts';
import { ApiError } from '../api-error.ts';
import { historyDocument } from '../history-document.ts';
import { readSnapshot, type RouteSite } from '../route-deps.ts';
import { parseQuery, queryRules } from '../strict-query.ts';

const QUERY = queryRules('/history', { since: 'text', member: 'text' });

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:Z|[+-]\d\d:\d\d)$/;

/** `since` as epoch ms: an RFC 3339 time, or a duration back from now (`15m`). */
export function parseSince(raw: string, now: number): number {
  if (ISO_TIME.test(raw)) {
    const at = Date.parse(raw);
    if (!Number.isNaN(at)) return at;
  }
  try {
    return now - parseDuration(raw, 0, 366 * 24 * 3_600_000);
  } catch {
    throw new ApiError('INVALID_PARAMETER', 'since: not an RFC 3339 time or a duration (e.g. 2026-12-02T10:00:00Z, or 15m back from now)');
  }
}

/**
 * GET /history: what changed over the window (or since `since`), optionally for one member. Rendered per
 * request: the window ends now, not at the round.
 */
export function historyRoute(app: FastifyInstance, site: RouteSite): void {
  app.get(`${site.prefix}/history`, async (request, reply) => {
    const deps = site.depsOf(request);
    const query = parseQuery(QUERY, request.query);
    const read = await readSnapshot(deps, '/history', request, reply);
    const now = deps.now();
    const since = query.since === undefined ? null : parseSince(query.since, now);
    let memberId: string | null = null;
    if (query.member !== undefined) {
      const member = findMember(read.value.view.members, query.member);
      if (!member) throw new ApiError('MEMBER_NOT_FOUND', `member: no member has that ID or name; members: ${knownMembers(read.value.view.members)}`);
      memberId = member.id;
    }
    return historyDocument(historyReport(deps.history, { since, memberId }, now));
  });
}
