import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_ERRORS, errorBody, errorText, type ApiErrorCode } from './api-error.ts';
import { prefersText } from './negotiate.ts';
import { JSON_TYPE, TEXT_TYPE } from './representation.ts';
import { addVary } from './response-headers.ts';

/** Errors that are a round's answer (an unknown member, no member answered): they keep the round's cache headers. */
const ROUND_ANSWERS: ReadonlySet<ApiErrorCode> = new Set(['MEMBER_NOT_FOUND', 'NO_MEMBER_REACHABLE', 'ALARMS_UNKNOWN']);

/**
 * Answers an error in the one envelope: `{"error": CODE, "message": ...}`, or `CODE: message` as
 * text/plain when the client prefers text (Vary: Accept). Never stored by caches (`no-store`), except
 * an error that is the answer of a round (an unknown member): it keeps the round's Cache-Control and Age.
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, code: ApiErrorCode, message: string): FastifyReply {
  reply.code(API_ERRORS[code]);
  if (!ROUND_ANSWERS.has(code) || reply.getHeader('cache-control') === undefined) {
    reply.header('cache-control', 'no-store');
    reply.removeHeader('age');
    reply.removeHeader('cache-status');
  }
  reply.removeHeader('etag');
  addVary(reply, 'Accept');
  if (prefersText(request.headers.accept)) return reply.type(TEXT_TYPE).send(errorText(code, message));
  return reply.type(JSON_TYPE).send(JSON.stringify(errorBody(code, message)));
}
