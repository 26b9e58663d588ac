import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { installErrorHandling } from './error-handler.ts';
import { installNotFound } from './not-found.ts';

/**
 * Makes a server answer every request it can read: records each route as it is registered (`METHOD
 * /url`), installs the error envelope and the 404/405 answers for everything else. Returns the routes,
 * filled as routes are added (tests hold openapi.yaml to them). Call before adding routes.
 */
export function installRouteBook(server: FastifyInstance, logger: Logger, notFoundHint?: (path: string) => string | null): readonly string[] {
  const routes: string[] = [];
  server.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`);
  });
  installErrorHandling(server, logger);
  installNotFound(server, () => routes, notFoundHint);
  return routes;
}
