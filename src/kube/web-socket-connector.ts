import { createSecureContext, type SecureContext } from 'node:tls';
import type { ClientOptions } from 'ws';
import type WebSocket from 'ws';
import type { KubeConfig, PortForward } from '@kubernetes/client-node';

/** What PortForward dials its WebSockets with (its public constructor's third parameter). */
export type WebSocketConnector = NonNullable<ConstructorParameters<typeof PortForward>[2]>;

type Pem = string | Buffer | ReadonlyArray<string | Buffer> | undefined;

/** The TLS material a context was made from, to tell whether the kubeconfig's still is the same. */
interface ContextEntry {
  readonly ca: Pem;
  readonly cert: Pem;
  readonly key: Pem;
  readonly context: SecureContext;
}

/** One TLS context per kubeconfig (while its credentials stay the same), shared by its WebSockets. */
const contexts = new WeakMap<KubeConfig, ContextEntry>();

function samePem(a: Pem, b: Pem): boolean {
  return a === b || (Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b));
}

/**
 * The TLS context for a WebSocket with these options: made once per kubeconfig and credentials, not per
 * connection (Node makes one per connection otherwise, parsing the CA, certificate and key each time;
 * a fleet opens a WebSocket per member every round). None for options it cannot make one from (a
 * PKCS#12 bundle): those connect as they would without it.
 */
function sharedContext(config: KubeConfig, options: ClientOptions): SecureContext | undefined {
  const { ca, cert, key, pfx } = options as { ca?: Pem; cert?: Pem; key?: Pem; pfx?: unknown };
  if (pfx !== undefined || (ca === undefined && cert === undefined)) return undefined;
  const cached = contexts.get(config);
  if (cached && samePem(cached.ca, ca) && samePem(cached.cert, cert) && samePem(cached.key, key)) return cached.context;
  const context = createSecureContext({ ca: ca as string | Buffer, cert: cert as string | Buffer, key: key as string | Buffer });
  contexts.set(config, { ca, cert, key, context });
  return context;
}

/**
 * The WebSocket side of client-node's PortForward, built on `ws` and KubeConfig's public
 * `applyToHTTPSOptions` (the API server's CA, the client certificate or token) instead of client-node's
 * internal WebSocketHandler: no import reaches into another package's `dist/`. `open` makes the
 * WebSocket, so that its owner sets the handshake deadline and sees refusals. Only binary frames carry
 * port-forward data (channel byte first); anything else is ignored.
 */
export function webSocketConnector(config: KubeConfig, open: (uri: string, options: ClientOptions) => WebSocket): WebSocketConnector {
  return {
    async connect(path, _textHandler, binaryHandler) {
      const server = config.getCurrentCluster()?.server;
      if (!server) throw new Error('the kubeconfig names no current cluster');
      const options: ClientOptions = {};
      await config.applyToHTTPSOptions(options);
      const context = sharedContext(config, options);
      if (context) (options as { secureContext?: SecureContext }).secureContext = context;
      const uri = `${server.replace(/^http/, 'ws')}${path}`;
      return new Promise((resolve, reject) => {
        const ws = open(uri, options);
        let opened = false;
        ws.once('open', () => {
          opened = true;
          resolve(ws);
        });
        ws.on('error', (error) => {
          if (!opened) reject(error);
        });
        ws.on('message', (data, isBinary) => {
          if (!isBinary || !binaryHandler || !Buffer.isBuffer(data) || data.length === 0) return;
          if (!binaryHandler(data.readUInt8(0), data.subarray(1))) ws.close();
        });
      });
    },
  };
}
