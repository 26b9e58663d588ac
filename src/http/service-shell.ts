import type { FastifyInstance } from 'fastify';
import { createListener, type ListenerOptions } from './listener.ts';
import type { BearerAuth } from './bearer-guard.ts';
import type { Lifecycle } from './lifecycle.ts';
import { installRouteBook } from './route-book.ts';
import { openapiRoute } from './routes/openapi.ts';
import { serviceProbeRoutes } from './routes/service-probes.ts';

/** What the service around the clusters is made of, whether it serves one cluster or a fleet. */
export interface ServiceShellOptions extends Omit<ListenerOptions, 'closing'> {
  readonly lifecycle: Lifecycle;
  /** What a 404 adds for a path that only the other kind of service serves (route-book.ts). */
  readonly notFoundHint?: (path: string) => string | null;
}

/** The listener with the service's own routes, ready for the cluster routes. */
export interface ServiceShell {
  readonly server: FastifyInstance;
  readonly secure: boolean;
  readonly auth: BearerAuth | null;
  /** Every route registered on the server, as `METHOD path` (the 405 and 404 answers read it). */
  readonly routes: readonly string[];
}

/**
 * The service's part that is the same for one cluster and for a fleet: the listener (limits, TLS, the
 * bearer guard, errors), the book of routes, `/livez`, `/readyz` and `/openapi.yaml`, and on close the
 * end of file reloading and the start of shutdown. The caller adds the cluster routes and its own
 * `onClose` hooks, which run after this one's.
 */
export function serviceShell(options: ServiceShellOptions): ServiceShell {
  const { lifecycle, notFoundHint, ...listenerOptions } = options;
  const listener = createListener({ ...listenerOptions, closing: () => !lifecycle.ready });
  const { server } = listener;
  const routes = installRouteBook(server, options.logger, notFoundHint);
  serviceProbeRoutes(server, { lifecycle });
  openapiRoute(server);
  server.addHook('onClose', async () => {
    listener.stopReloading();
    lifecycle.beginShutdown();
  });
  return { server, secure: listener.secure, auth: listener.auth, routes };
}
