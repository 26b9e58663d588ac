import { PassThrough } from 'node:stream';
import { type KubeConfig, PortForward } from '@kubernetes/client-node';
import type WebSocket from 'ws';

// Opens a port-forward with the real client-node PortForward, the way a test sees it: bytes out, bytes
// in, the error channel's text, and when the WebSocket closed (client-node itself does not end the output
// stream on close, so this helper does).

/** An open client-node port-forward. */
export interface ClientTunnel {
  readonly ws: WebSocket;
  /** Bytes from the pod's port. */
  readonly output: PassThrough;
  /** Bytes to the pod's port (ending it makes client-node close the WebSocket). */
  readonly input: PassThrough;
  /** Everything received on the error channel so far. */
  errorText(): string;
  /** Resolves with the close code when the WebSocket has closed. */
  readonly closed: Promise<number>;
}

/** Port-forwards to pod port through the API server of kc; rejects as client-node does when the upgrade fails. */
export async function openTunnel(kc: KubeConfig, namespace: string, pod: string, port: number): Promise<ClientTunnel> {
  const output = new PassThrough();
  const errors = new PassThrough();
  const input = new PassThrough();
  // Whatever is stacked on these (Duplex.from, a TLS socket) may destroy them with an error; client-node
  // adds no 'error' listener of its own, so an unhandled one would crash the process.
  for (const stream of [output, errors, input]) stream.on('error', () => {});
  let text = '';
  errors.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const ws = (await new PortForward(kc).portForward(namespace, pod, [port], output, errors, input)) as unknown as WebSocket;
  const closed = new Promise<number>((resolve) => {
    if (ws.readyState === ws.CLOSED) resolve(1006);
    ws.on('close', (code: number) => {
      output.end();
      resolve(code);
    });
  });
  return { ws, output, input, errorText: () => text, closed };
}
