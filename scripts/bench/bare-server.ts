import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

// The comparison server: bare Fastify answering GET /healthz/etcd with one fixed JSON document (a real
// body of the service, read from BARE_BODY_FILE). It returns the parsed object, so Fastify serializes it
// per request just as the service's route does. It prints {"port":N} on stdout once it listens.

const bodyFile = process.env.BARE_BODY_FILE;
if (!bodyFile) throw new Error('BARE_BODY_FILE is not set');
const document = JSON.parse(readFileSync(bodyFile, 'utf8')) as unknown;

const app = Fastify({ logger: false });
app.get('/healthz/etcd', async (_request, reply) => {
  // The same cache headers the service sends, so both responses are the same size on the wire.
  reply.header('cache-control', 'max-age=5');
  reply.header('age', '0');
  return document;
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : null })}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
