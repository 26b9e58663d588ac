import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { serveScript } from './serve-script.ts';

// The comparison server: bare Fastify answering GET /healthz/etcd with one fixed body (a real answer of
// the service, read from BARE_BODY_FILE) and the same response headers the service sent with it
// (BARE_HEADERS_FILE, JSON), as static values: the same bytes on the wire, with none of the service's
// work per request (strict query, cache lookup, counters, Age, conditional requests, hooks). The body is
// sent as a Buffer, as the service sends its rendered answers. It prints {"port":N} once it listens.

const bodyFile = process.env.BARE_BODY_FILE;
const headersFile = process.env.BARE_HEADERS_FILE;
if (!bodyFile || !headersFile) throw new Error('BARE_BODY_FILE and BARE_HEADERS_FILE must be set');
const body = readFileSync(bodyFile);
const headers = JSON.parse(readFileSync(headersFile, 'utf8')) as Record<string, string>;

const app = Fastify({ logger: false });
app.get('/healthz/etcd', async (_request, reply) => {
  reply.headers(headers);
  return body;
});
await serveScript(app);
