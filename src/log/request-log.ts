import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Request logging that does not flood: load balancers poll every few seconds, so each request is logged
 * at debug (method, URL, status, time), never at info.
 */
export class QuietLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.trace({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    if (error) request.log.error({ ...fields, err: error }, 'request errored');
    else request.log.debug(fields, 'request completed');
  }
}
