import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ApiError } from './api-error.ts';
import { sendError } from './error-reply.ts';
import { ROUTER_LIMITS } from './listener-options.ts';
import { setSecurityHeaders } from './response-headers.ts';

/**
 * Renders every error a route or Fastify raises in the one envelope, with its catalogue status. The
 * messages are the service's own: Fastify's would quote the request (a content type, a path) back.
 * No stack trace ever leaves; a 500 is logged with it. (No route reads a body: other methods than GET
 * and HEAD are answered 405 before one is read (not-found.ts), and Node discards a GET's, so Fastify's
 * 413 and 415 cannot arise; any other 4xx of its own is a 400.)
 */
export function installErrorHandling(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) return sendError(request, reply, error.code, error.message);
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendError(request, reply, 'BAD_REQUEST', `the request is malformed (${error.code ?? 'unknown'})`);
    logger.error({ err: error, method: request.method, route: request.routeOptions.url }, 'request failed');
    return sendError(request, reply, 'INTERNAL', "internal error; the service's log has the details");
  });
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any route or hook runs, in the envelope
 * and with the headers the onSend hooks would have added. A path that is not valid percent-encoding
 * (`/members/%ZZ`) is a 400, a path parameter longer than the router takes is a 414.
 */
export function frameworkErrorHandler(options: { readonly https: boolean; readonly logger: Logger }): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    setSecurityHeaders(reply, options.https);
    if (error.code === 'FST_ERR_BAD_URL') {
      sendError(request, reply, 'BAD_REQUEST', 'the URL path is not valid percent-encoding');
      return;
    }
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      sendError(request, reply, 'URI_TOO_LONG', `a path parameter is longer than ${ROUTER_LIMITS.maxParamLength} characters`);
      return;
    }
    options.logger.error({ err: error }, 'request failed in the router');
    sendError(request, reply, 'INTERNAL', "internal error; the service's log has the details");
  };
}
