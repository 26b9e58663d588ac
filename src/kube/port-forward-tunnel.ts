import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { duplexPair, Writable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { PortForward } from '@kubernetes/client-node';
import WebSocket from 'ws';
import { probeError, type ProbeError } from '../probe/outcome.ts';
import type { KubeConnection } from './kube-connection.ts';
import { connectError, droppedError, kubeletError, MAX_ERROR_BODY, refusalError, type PortForwardTarget } from './port-forward-errors.ts';
import { secureOver, TunnelSessions, type TunnelTls } from './tunnel-tls.ts';
import { webSocketConnector } from './web-socket-connector.ts';

/** The only subprotocol asked for: the v4 channel framing (data channel 0, error channel 1, port prefix). */
export const PORT_FORWARD_PROTOCOL = 'v4.channel.k8s.io';

/** Where a tunnel leads and how long its handshake may take. */
export interface TunnelOptions {
  readonly connection: KubeConnection;
  readonly namespace: string;
  readonly pod: string;
  readonly node: string;
  readonly port: number;
  readonly timeoutMs: number;
  /** TLS made by the tunnel; absent: bytes pass as they are. */
  readonly tls?: TunnelTls;
}

/** A failure of the tunnel, stamped with performance.now() so a call can tell whether it was hit by it. */
export interface TunnelFailure {
  readonly at: number;
  readonly error: ProbeError;
}

/** The largest WebSocket message accepted from the API server: ws's default is 100 MiB. */
export const MAX_WEBSOCKET_PAYLOAD = 1024 * 1024;
/** WebSocket close code for a connection lost without a close frame. */
const ABNORMAL_CLOSURE = 1006;
/** What ws says when #refused terminates a handshake it has already reported. */
const REFUSAL_ABORT = /closed before the connection was established/;

/**
 * A local listener whose every connection is piped through the API server's port-forward to one pod's
 * port (client-node's PortForward over WebSocket, subprotocol v4.channel.k8s.io). gRPC dials the
 * listener; each connection gets its own WebSocket, so a dropped tunnel is re-established by gRPC's
 * own reconnect. The listener is a unix socket in a directory of its own with mode 0700 (removed on
 * close), so that only this process's user can connect: a loopback TCP port would let any local
 * process talk to etcd as the probe (with `tls`, the tunnel presents the probe's client certificate
 * itself). Every socket and WebSocket has an error handler, and close() ends them all.
 */
export class PortForwardTunnel {
  readonly #options: TunnelOptions;
  readonly #target: PortForwardTarget;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #webSockets = new Set<WebSocket>();
  readonly #portForward: PortForward;
  #failure: TunnelFailure | null = null;
  /** TLS sessions with the pod's port (tls only): the next connection resumes the last. */
  readonly #sessions = new TunnelSessions();
  #openedAt = -1;
  #closed = false;
  #directory: Promise<string | null>;

  constructor(options: TunnelOptions) {
    this.#options = options;
    this.#target = { server: options.connection.server, namespace: options.namespace, pod: options.pod, node: options.node, port: options.port };
    const connector = webSocketConnector(options.connection.config, (uri, opts) => this.#openWebSocket(uri, opts), options.connection.guard);
    this.#portForward = new PortForward(options.connection.config, true, connector);
    this.#server = createServer({ pauseOnConnect: true }, (socket) => this.#accept(socket));
    // mkdtemp makes the directory 0700: the socket in it is reachable by this user only.
    this.#directory = mkdtemp(join(tmpdir(), 'etcd-probe-tunnel-')).catch(() => null);
    this.ready = this.#listen();
    // A failed listen is reported through ready to whoever awaits it; it must not go unhandled meanwhile.
    this.ready.catch(() => {});
  }

  /** Resolves to `unix:<path>`, the address gRPC dials, once the listener is bound. */
  readonly ready: Promise<string>;

  async #listen(): Promise<string> {
    const directory = await this.#directory;
    if (directory === null) throw new Error(`cannot create a private directory for the tunnel's socket in ${tmpdir()} (port-forward needs a writable temporary directory)`);
    if (this.#closed) throw new Error('the tunnel was closed before it listened');
    const path = join(directory, 'etcd.sock');
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(path, () => {
        this.#server.off('error', reject);
        this.#server.on('error', (error) => this.#fail(probeError('PORT_FORWARD_FAILED', `local tunnel listener: ${error.message}`)));
        resolve();
      });
    });
    return `unix:${path}`;
  }

  /**
   * Why the tunnel is broken now: its latest failure, unless a WebSocket has opened since. gRPC may
   * fail a call from its backoff state without dialling again, so "since the call began" is not enough.
   */
  get failure(): ProbeError | null {
    return this.#failure && this.#failure.at > this.#openedAt ? this.#failure.error : null;
  }

  /** The TLS handshakes the tunnel made with the pod's port (tls only): how many were resumed sessions. */
  get handshakes(): { readonly full: number; readonly resumed: number } {
    return { ...this.#sessions.handshakes };
  }

  /** Stops listening, ends every connection and WebSocket, and removes the socket and its directory. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const ws of this.#webSockets) ws.terminate();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    const directory = await this.#directory;
    if (directory !== null) await rm(directory, { recursive: true, force: true });
  }

  /**
   * Ends every connection and its WebSocket but keeps listening: whoever dialled dials again. An end
   * asked for is not a failure (each socket is gone before its WebSocket closes).
   */
  dropConnections(): void {
    for (const socket of this.#sockets) socket.destroy();
  }

  #fail(error: ProbeError): void {
    this.#failure = { at: performance.now(), error };
  }

  #accept(socket: Socket): void {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.on('error', () => {
      // The peer (gRPC) went away; the WebSocket is ended on close below.
    });
    socket.on('close', () => this.#sockets.delete(socket));
    const { namespace, pod, port } = this.#options;
    const kubeletErrors = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        // The kubelet's (or a tenant's API server's) words: only a capped, sanitised prefix is kept.
        const text = chunk.subarray(0, MAX_ERROR_BODY).toString('utf8').trim();
        if (text !== '') {
          this.#fail(kubeletError(this.#target, text));
          socket.destroy();
        }
        done();
      },
    });
    // With TLS, the port-forward carries the far end of a pair whose near end the TLS runs over.
    const { tls } = this.#options;
    const [near, far] = tls ? duplexPair() : [null, socket];
    this.#portForward.portForward(namespace, pod, [port], far, kubeletErrors, far).then(
      (ws) => {
        const webSocket = ws as unknown as WebSocket;
        if (this.#closed || socket.destroyed) {
          webSocket.terminate();
          return;
        }
        this.#openedAt = performance.now();
        if (near && tls) secureOver(socket, near, tls, this.#sessions, (error) => this.#fail(error));
        webSocket.on('close', (code: number) => {
          // 1006: the TCP connection to the API server dropped without a close frame (the API server,
          // or the way to it, went away). A normal close is the pod's port or our own side ending.
          if (code === ABNORMAL_CLOSURE && !this.#closed && !socket.destroyed) {
            this.#fail(droppedError(this.#target));
          }
          socket.destroy();
        });
        socket.on('close', () => webSocket.terminate());
        if (!near) socket.resume();
      },
      (error: unknown) => {
        // An HTTP refusal was already recorded (with the API server's message) before #refused aborted.
        if (!REFUSAL_ABORT.test(String((error as { message?: unknown })?.message ?? ''))) this.#fail(connectError(this.#target, this.#options.timeoutMs, error));
        socket.destroy();
      },
    );
  }

  #openWebSocket(uri: string, opts: WebSocket.ClientOptions): WebSocket {
    // No permessage-deflate: a port-forward carries TLS (incompressible), and each compressing WebSocket would
    // hold zlib state (hundreds of KiB) for as long as the tunnel is open.
    const ws = new WebSocket(uri, [PORT_FORWARD_PROTOCOL], { ...opts, handshakeTimeout: this.#options.timeoutMs, perMessageDeflate: false, maxPayload: MAX_WEBSOCKET_PAYLOAD });
    this.#webSockets.add(ws);
    ws.on('close', () => this.#webSockets.delete(ws));
    ws.on('error', () => {
      // Reported through the connect promise (before open) or by the close that follows (after).
    });
    ws.on('unexpected-response', (request, response: IncomingMessage) => this.#refused(ws, request, response));
    return ws;
  }

  // The API server answered the upgrade with an HTTP error: read its Status message, then abort.
  #refused(ws: WebSocket, request: { destroy(): void }, response: IncomingMessage): void {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      if (body.length < MAX_ERROR_BODY) body += chunk;
    });
    response.on('error', () => {});
    const finish = () => {
      this.#fail(refusalError(this.#target, response.statusCode ?? 0, body));
      ws.terminate();
      request.destroy();
    };
    response.on('end', finish);
    response.on('close', () => {
      if (!response.complete) finish();
    });
  }
}
