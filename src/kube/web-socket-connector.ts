import type { SecureContext } from 'node:tls';
import type { ClientOptions } from 'ws';
import type WebSocket from 'ws';
import type { KubeConfig, PortForward } from '@kubernetes/client-node';
import type { DialGuard } from './dial-guard.ts';
import { sharedTlsContext } from './tls-context-cache.ts';

/** What PortForward dials its WebSockets with (its public constructor's third parameter). */
export type WebSocketConnector = NonNullable<ConstructorParameters<typeof PortForward>[2]>;

/**
 * The WebSocket side of client-node's PortForward, built on `ws` and KubeConfig's public
 * `applyToHTTPSOptions` (the API server's CA, the client certificate or token) instead of client-node's
 * internal WebSocketHandler: no import reaches into another package's `dist/`. `open` makes the
 * WebSocket, so that its owner sets the handshake deadline and sees refusals. Only binary frames carry
 * port-forward data (channel byte first); anything else is ignored.
 */
export function webSocketConnector(config: KubeConfig, open: (uri: string, options: ClientOptions) => WebSocket, guard: DialGuard | null = null): WebSocketConnector {
  return {
    async connect(path, _textHandler, binaryHandler) {
      const server = config.getCurrentCluster()?.server;
      if (!server) throw new Error('the kubeconfig names no current cluster');
      const options: ClientOptions = {};
      await config.applyToHTTPSOptions(options);
      const context = sharedTlsContext(config, options);
      if (context) (options as { secureContext?: SecureContext }).secureContext = context;
      const uri = `${server.replace(/^http/, 'ws')}${path}`;
      if (guard) {
        // An IP address in the URL is never looked up, so it is checked here; a name goes through the guard's lookup.
        await guard.resolve(new URL(server).hostname);
        (options as { lookup?: unknown }).lookup = guard.lookup;
      }
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
