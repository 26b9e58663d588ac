import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { serveRequest, serveUpgrade, type HandlerContext, type ServedApi } from './api-handler.ts';
import type { RequestLogger } from './tunnel-book.ts';
import type { WorkloadCluster } from './workload-cluster.ts';
import type { WorkloadRegistry } from './workload-registry.ts';

// Which API server of one listener a request is for: the management one at the root, a workload cluster
// under /workloads/<namespace>/<name>, or a workload cluster that is gone or down, whose connection drops
// as with an API server that stopped (logged with status 0).

/** The API server a URL is for, the path below its prefix, and the handler context of its tunnels. */
interface Route {
  readonly api: ServedApi;
  readonly path: string;
  readonly context: HandlerContext;
  readonly workload: WorkloadCluster | null;
}

/** Hands each request and upgrade of a listener to the API server it is for. */
export class ApiRouter {
  readonly #management: ServedApi;
  readonly #context: HandlerContext;
  readonly #workloads: WorkloadRegistry;
  readonly #log: RequestLogger;

  constructor(management: ServedApi, context: HandlerContext, workloads: WorkloadRegistry, log: RequestLogger) {
    this.#management = management;
    this.#context = context;
    this.#workloads = workloads;
    this.#log = log;
  }

  /** Serves a plain HTTP request. */
  request(req: IncomingMessage, res: ServerResponse): void {
    this.#dispatch(req, false, () => req.socket.destroy(), (route, url) => serveRequest(route.api, route.path, url, req, res, route.context));
  }

  /** Serves an upgrade (port-forward, watch over WebSocket). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#dispatch(req, true, () => socket.destroy(), (route, url) => serveUpgrade(route.api, route.path, url, req, socket, head, route.context));
  }

  #route(url: URL): Route | 'gone' {
    const route = this.#workloads.route(url.pathname);
    if (route === null) return { api: this.#management, path: url.pathname, context: this.#context, workload: null };
    if (route === 'gone') return 'gone';
    return { api: route.cluster, path: route.path, context: route.context, workload: route.cluster };
  }

  #dispatch(req: IncomingMessage, upgrade: boolean, destroy: () => void, serve: (route: Route, url: URL) => void): void {
    const url = new URL(req.url ?? '/', 'https://fake');
    const route = this.#route(url);
    const reset = () => {
      this.#log(req, url, null, 0, upgrade);
      destroy();
    };
    if (route === 'gone') return reset();
    // A workload cluster that is down resets (or, hung, holds the request until it is up).
    if (route.workload && !route.workload.admit(() => serve(route, url))) reset();
    else if (!route.workload) serve(route, url);
  }
}
