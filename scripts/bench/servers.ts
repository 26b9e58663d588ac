import { fileURLToPath } from 'node:url';
import { startFlags } from '#lab/service/start-flags.ts';
import type { EtcdCluster } from '#lab/etcd/cluster.ts';
import { NodeChild } from './child-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_TIMEOUT_MS = 20_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A server child and the base URL it answers on. */
export interface ServerChild {
  readonly child: NodeChild;
  readonly url: string;
}

async function waitFor<T>(what: string, child: NodeChild, attempt: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!child.running) throw new Error(`${child.name} exited before ${what}; its output:\n${child.output}`);
    const value = await attempt().catch(() => null);
    if (value !== null) return value;
    await sleep(50);
  }
  throw new Error(`${child.name}: no ${what} within ${READY_TIMEOUT_MS} ms; its output:\n${child.output}`);
}

/**
 * Starts the service as `npm start` does (its Node flags included, unless `nodeFlags` says otherwise)
 * with the given ETCD_PROBE_* settings, and waits until /livez answers.
 */
export async function startService(name: string, port: number, env: Record<string, string>, nodeFlags: readonly string[] = startFlags()): Promise<ServerChild> {
  const child = new NodeChild(name, [...nodeFlags, `${ROOT}dist/main.js`], {
    ETCD_PROBE_LISTEN: `127.0.0.1:${port}`,
    ETCD_PROBE_LOG_LEVEL: 'warn',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor('/livez', child, async () => {
    const response = await fetch(`${url}/livez`, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.ok ? true : null;
  });
  return { child, url };
}

/** Starts one of the bench's own servers (a script printing {"port":N} once it listens) and waits for its port. */
async function startScript(name: string, script: string, env: Record<string, string>, nodeFlags: readonly string[]): Promise<ServerChild> {
  const child = new NodeChild(name, [...nodeFlags, '--experimental-strip-types', '--no-warnings=ExperimentalWarning', `${ROOT}scripts/bench/${script}`], env);
  const port = await waitFor('port', child, async () => {
    const match = /\{"port":(\d+)\}/.exec(child.output);
    return match ? Number(match[1]) : null;
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/**
 * Starts a bare Fastify comparison server serving the body and headers in the two files, and waits for
 * its port. `nodeFlags` are its V8 flags: the service's own (`npm start`'s), so that both run on the same
 * runtime settings, or none for Node's defaults.
 */
export function startBare(name: string, bodyFile: string, headersFile: string, nodeFlags: readonly string[]): Promise<ServerChild> {
  return startScript(name, 'bare-server.ts', { BARE_BODY_FILE: bodyFile, BARE_HEADERS_FILE: headersFile }, nodeFlags);
}

/**
 * Starts the cold path's floor (floor-server.ts: bare Fastify making the bare client's calls per request)
 * on a TLS cluster, with the service's Node flags.
 */
export function startFloor(name: string, cluster: EtcdCluster): Promise<ServerChild> {
  const { pki } = cluster;
  if (!pki) throw new Error('the cluster has no TLS files');
  return startScript(name, 'floor-server.ts', { FLOOR_ENDPOINTS: cluster.endpoints, FLOOR_CACERT: pki.caFile, FLOOR_CERT: pki.clientCertFile, FLOOR_KEY: pki.clientKeyFile }, startFlags());
}

/** A 200 answer as the bench keeps it: the body, and the headers a bare server must repeat to match it on the wire. */
export interface OkAnswer {
  readonly body: string;
  readonly headers: Record<string, string>;
}

// Headers Node or Fastify add by themselves on either side.
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** Waits until GET url answers 200 (e.g. the service's first healthy verdict), and returns its body and headers. */
export async function waitForOk(server: ServerChild, path: string): Promise<OkAnswer> {
  return waitFor(`200 on ${path}`, server.child, async () => {
    const response = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(5000) });
    const body = await response.text();
    if (response.status !== 200) return null;
    const headers = Object.fromEntries([...response.headers].filter(([name]) => !TRANSPORT_HEADERS.has(name)));
    return { body, headers };
  });
}
