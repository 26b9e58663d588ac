import Fastify from 'fastify';
import { RawEtcd } from './raw-etcd.ts';
import { serveScript } from './serve-script.ts';

// The cold path's floor: bare Fastify that answers GET /healthz/etcd by making the bare client's calls
// (RawEtcd.fullRound: the service's call set, nothing judged) and sending {"durationMs": …}. It is what
// any HTTP service pays for those calls on this machine: an HTTP exchange with a process that was idle,
// and the calls made from that process. The service's cold answer over this floor is what its own
// work (the verdict, its rendering, its bookkeeping) costs. The cluster comes from FLOOR_ENDPOINTS and
// FLOOR_CACERT / FLOOR_CERT / FLOOR_KEY. It prints {"port":N} once it listens.

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

const raw = new RawEtcd(required('FLOOR_ENDPOINTS').split(','), {
  caFile: required('FLOOR_CACERT'),
  clientCertFile: required('FLOOR_CERT'),
  clientKeyFile: required('FLOOR_KEY'),
});
const app = Fastify({ logger: false });
app.get('/healthz/etcd', async (_request, reply) => {
  const durationMs = await raw.fullRound();
  reply.header('content-type', 'application/json; charset=utf-8');
  return JSON.stringify({ durationMs });
});
await serveScript(app, () => raw.close());
