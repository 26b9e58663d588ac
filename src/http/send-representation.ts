import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Representation } from './representation.ts';

/**
 * Whether an If-None-Match header names this ETag (weak comparison, as RFC 9110 13.1.2 wants for
 * If-None-Match; `*` matches any current representation).
 */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}

/**
 * Sends a rendered representation: its status, type, ETag and bytes; nothing is serialized per request.
 * A request whose If-None-Match names the ETag gets 304 with the same headers and no body, but only
 * where the answer would be a 2xx: a 503 or 409 is always sent whole (RFC 9110 13.2.1), so that a
 * poller holding a cached 200 can never be told "not modified" about a failure.
 */
export function sendRepresentation(request: FastifyRequest, reply: FastifyReply, representation: Representation): FastifyReply {
  reply.header('etag', representation.etag);
  if (representation.status < 300 && noneMatchHits(request.headers['if-none-match'], representation.etag)) return reply.code(304).send();
  reply.code(representation.status);
  reply.header('content-type', representation.contentType);
  return reply.send(representation.body);
}
