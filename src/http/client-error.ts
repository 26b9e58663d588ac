import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { API_ERRORS, errorBody, type ApiErrorCode } from './api-error.ts';
import { LISTENER_LIMITS } from './listener-options.ts';
import { HSTS } from './response-headers.ts';

/** What Node's HTTP server reports when it refuses a request before any route sees it. */
type ClientError = Error & { code?: string; rawPacket?: unknown };

const METHOD_AND_SPACE = /^[A-Z-]+ /;

/** Which catalogue error a parser or timeout error is, and what to say. */
export function classifyClientError(error: ClientError): [ApiErrorCode, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return ['REQUEST_TIMEOUT', 'the request did not arrive in time'];
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // The request line alone past the limit: 414. Seen in the packet that Node was parsing, when it holds
    // the start of the request (one packet on most clients); otherwise the answer stays 431.
    const packet = error.rawPacket;
    if (Buffer.isBuffer(packet) && METHOD_AND_SPACE.test(packet.subarray(0, 16).toString('latin1'))) {
      const lineEnd = packet.indexOf('\r\n');
      if (lineEnd === -1 || lineEnd >= LISTENER_LIMITS.maxHeaderBytes) return ['URI_TOO_LONG', 'the request line is longer than the 8 KiB the service reads'];
    }
    return ['HEADERS_TOO_LARGE', 'the request line and headers are longer than the 8 KiB the service reads'];
  }
  // Node's own parser codes (e.g. HPE_INVALID_METHOD) name the fault and never carry the request's bytes.
  const code = error.code?.startsWith('HPE_') ? ` (${error.code})` : '';
  return ['BAD_REQUEST', `the request is not valid HTTP/1.1${code}`];
}

/**
 * Fastify's `clientErrorHandler`: answers what Node's HTTP parser refuses (malformed requests, a
 * request line or headers past the limit, requests that time out) in the envelope, then closes the
 * connection. Always JSON: the request's headers were not parsed, so there is no Accept to honour.
 */
export function clientErrorHandler(options: { readonly https: boolean }): (error: ClientError, socket: Socket) => void {
  return (error, socket) => {
    // A reset or destroyed socket has no one left to answer (as Fastify's own handler does).
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [code, message] = classifyClientError(error);
    const status = API_ERRORS[code];
    const body = JSON.stringify(errorBody(code, message));
    const headers = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      'X-Content-Type-Options: nosniff',
      ...(options.https ? [`Strict-Transport-Security: ${HSTS}`] : []),
      'Connection: close',
    ];
    if (socket.writable) socket.write(`${headers.join('\r\n')}\r\n\r\n${body}`);
    socket.destroy(error);
  };
}
