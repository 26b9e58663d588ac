import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/**
 * Request logging that does not flood: load balancers poll every few seconds, so each request is logged
 * at debug (method, URL, status, time), never at info; and nothing is built when debug is off.
 */
export class QuietLogController extends LogController {
  readonly #logger: Logger;

  constructor(logger: Logger) {
    super();
    this.#logger = logger;
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.#logger.isLevelEnabled('trace')) {
      request.log.trace({ reqId: request.id, method: request.method, url: request.url }, 'incoming request');
    }
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      request.log.error({ reqId: request.id, method: request.method, url: request.url, statusCode: reply.statusCode, err: error }, 'request errored');
    } else if (this.#logger.isLevelEnabled('debug')) {
      const fields = { reqId: request.id, method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime };
      request.log.debug(fields, 'request completed');
    }
  }
}
