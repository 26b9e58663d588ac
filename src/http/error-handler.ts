import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, errorBody } from './api-error.ts';

function validationMessage(error: FastifyError, query: unknown): string {
  const [first] = error.validation ?? [];
  const name = (first?.instancePath ?? '').replace(/^\//, '') || String((first?.params as { missingProperty?: string })?.missingProperty ?? 'request');
  const got = (query as Record<string, unknown> | undefined)?.[name];
  const allowed = (first?.params as { allowedValues?: unknown[] } | undefined)?.allowedValues;
  const rule = allowed ? `must be one of ${allowed.join(', ')}` : (first?.message ?? 'is invalid');
  return `parameter '${name}' ${rule}${got === undefined ? '' : ` (got '${String(got)}')`}`;
}

/** Renders every error as `{error, message}` with its catalogue status; no stack trace ever leaves. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) return reply.code(error.statusCode).send(errorBody(error.code, error.message));
    if (error.validation) return reply.code(400).send(errorBody('INVALID_PARAMETER', validationMessage(error, request.query)));
    const status = error.statusCode ?? 500;
    if (status === 413) return reply.code(413).send(errorBody('PAYLOAD_TOO_LARGE', error.message));
    if (status === 415) return reply.code(415).send(errorBody('UNSUPPORTED_MEDIA_TYPE', error.message));
    if (status >= 400 && status < 500) return reply.code(400).send(errorBody('BAD_REQUEST', error.message));
    request.log.error({ err: error, url: request.url }, 'request failed');
    return reply.code(500).send(errorBody('INTERNAL', "internal error; the service's log has the details"));
  });
}
