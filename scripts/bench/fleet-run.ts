import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capiFleetRules } from '#lab/kube-apiserver/auth.ts';
import { FakeFleet, type FleetBackend } from '#lab/kube-apiserver/fake-fleet.ts';
import { timedGetAnyStatus, timedGetJson } from './load.ts';
import { startService, type ServerChild } from './servers.ts';

// One fleet-mode run of the bench (scripts/bench/fleet.ts): a fresh kube-apiserver STAND-IN fleet of N
// simulated workload clusters in this process, and a fresh etcd-probe SERVICE in a child process, run as
// `npm start` runs it, reading that fleet through a least-privilege management kubeconfig.

const NAMESPACES = Array.from({ length: 10 }, (_, i) => `fleet-${i}`);
const POLL_MS = 250;
/** How long the bench waits for a first answer before it records none. */
const FIRST_ANSWER_LIMIT_MS = 60_000;

/** One row of GET /clusters, as far as the bench reads it. */
export interface Row {
  readonly name: string;
  readonly state: 'probed' | 'unchecked' | 'waiting';
  readonly owned: boolean;
  readonly status: string | null;
}

/** A running stand-in fleet and the service reading it. */
export interface FleetRun {
  readonly fleet: FakeFleet;
  readonly service: ServerChild;
  /** Milliseconds from spawning the service to `ready` holding for the /clusters rows. */
  readonly warmMs: number;
  /** The rows when the fleet was warm. */
  readonly rows: readonly Row[];
  stop(): Promise<void>;
}

/** Options of startRun. */
export interface RunOptions {
  readonly backends: readonly FleetBackend[];
  readonly clusters: number;
  /** ETCD_PROBE_FLEET_REFRESH, e.g. `10s`. */
  readonly refresh: string;
  /** ETCD_PROBE_SHARD; the whole fleet when absent. */
  readonly shard?: string;
  /** When the fleet counts as warm: every cluster this replica owns is probed. */
  readonly warmWithinMs: number;
  /** The service's Node flags; npm start's when absent. */
  readonly nodeFlags?: readonly string[];
  /** ETCD_PROBE_FLEET_HOLD_CONNECTIONS; the service's default when absent. */
  readonly holdConnections?: boolean;
}

/** A free loopback TCP port (bound once and released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** GET /clusters' rows. */
export async function clusterRows(service: ServerChild): Promise<{ ms: number; rows: Row[] }> {
  const { ms, body } = await timedGetJson(`${service.url}/clusters`, 30_000);
  return { ms, rows: (body as { clusters: Row[] }).clusters };
}

/** Polls `check` every POLL_MS until it returns a value, the service dies, or withinMs passes. */
export async function pollUntil<T>(what: string, service: ServerChild, withinMs: number, check: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (!service.child.running) throw new Error(`the service exited before ${what}; its output:\n${service.child.output}`);
    const value = await check().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${withinMs} ms; the service's output:\n${service.child.output}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Starts the stand-in fleet and the service, and waits until every owned cluster holds a round. */
export async function startRun(options: RunOptions): Promise<FleetRun> {
  const fleet = await FakeFleet.start({ backends: options.backends, clusters: options.clusters, namespaces: NAMESPACES });
  const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-'));
  let service: ServerChild | null = null;
  const stop = async () => {
    await service?.child.stop(10_000);
    await fleet.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // The reader's rights are those the docs give the service: get/list/watch Clusters, get Secrets.
    const token = fleet.api.addUser('system:serviceaccount:monitoring:etcd-probe', capiFleetRules('*'));
    const kubeconfig = await fleet.api.writeKubeconfig(dir, { auth: 'token', token });
    const started = performance.now();
    service = await startService(`etcd-probe fleet ${options.clusters}`, await freePort(), {
      ETCD_PROBE_CAPI_CLUSTER: '*',
      // The stand-in's workload API servers listen on 127.0.0.1: the default deny list without loopback.
      ETCD_PROBE_DENY_CIDRS: '0.0.0.0/8,::/128,169.254.0.0/16,fe80::/10',
      ETCD_PROBE_MANAGEMENT_KUBECONFIG: kubeconfig,
      ETCD_PROBE_FLEET_REFRESH: options.refresh,
      ...(options.shard ? { ETCD_PROBE_SHARD: options.shard } : {}),
      ...(options.holdConnections === undefined ? {} : { ETCD_PROBE_FLEET_HOLD_CONNECTIONS: String(options.holdConnections) }),
    }, options.nodeFlags);
    const running = service;
    const rows = await pollUntil(`a warm fleet of ${options.clusters}`, running, options.warmWithinMs, async () => {
      const { rows: now } = await clusterRows(running);
      return now.length === options.clusters && now.every((r) => !r.owned || r.state === 'probed') ? now : null;
    });
    return { fleet, service: running, warmMs: performance.now() - started, rows, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Adds a cluster to the stand-in, waits until the service lists it (its listing runs every refresh),
 * then times the first GET of its /healthz/etcd. Returns the time, the HTTP status and the row's state
 * when it was first listed (an owned cluster's warm round may already have started by then).
 */
export async function firstAnswerOfNew(run: FleetRun, name: string, listedWithinMs: number): Promise<{ ms: number; status: number; stateWhenListed: string }> {
  run.fleet.addCluster('fleet-0', name);
  const full = `fleet-0/${name}`;
  const row = await pollUntil(`${full} listed`, run.service, listedWithinMs, async () => (await clusterRows(run.service)).rows.find((r) => r.name === full) ?? null);
  const answer = await firstAnswer(run, full);
  return { ...answer, stateWhenListed: row.state };
}

/** Times the first GET of a cluster's /healthz/etcd (name `namespace/name`). */
export async function firstAnswer(run: FleetRun, name: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  try {
    return await timedGetAnyStatus(`${run.service.url}/clusters/${encodeURIComponent(name)}/healthz/etcd`, FIRST_ANSWER_LIMIT_MS);
  } catch {
    // No answer at all within the limit: reported as status 0 and the time waited, not as a bench failure.
    return { ms: performance.now() - started, status: 0 };
  }
}
