import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { EtcdCluster } from '../fixtures/etcd-cluster.ts';
import { freePorts } from '../fixtures/free-port.ts';
import { eventually, get } from '../helpers/http.ts';
import { clusterEnv } from '../helpers/start-service.ts';

// The real entry point as a process: exit codes, one-line config errors, JSON logs, graceful SIGTERM.

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
let cluster: EtcdCluster;

interface Started {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
}

function run(env: Record<string, string>, args: string[] = []): Started {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_PROBE_')));
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', MAIN, ...args], { env: { ...clean, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
});

afterAll(async () => {
  await cluster?.stop();
});

describe('the etcd-probe process', () => {
  it('stops with exit code 78 and one line naming the variable when a certificate path is wrong', async () => {
    const p = run({ ETCD_PROBE_CERT: '/etc/etcd/x.crt', ETCD_PROBE_KEY: cluster.pki!.clientKeyFile });
    expect(await p.exit).toBe(78);
    expect(p.stderr()).toBe('etcd-probe: ETCD_PROBE_CERT: cannot read /etc/etcd/x.crt: no such file\n');
    expect(p.stdout()).toBe('');
  });

  it('exits 78 naming ETCD_PROBE_AUTH_TOKEN_FILE when the token file is empty, without starting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-main-token-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'token');
    writeFileSync(file, '\n');
    const p = run({ ETCD_PROBE_AUTH_TOKEN_FILE: file });
    expect(await p.exit).toBe(78);
    expect(p.stderr()).toBe(`etcd-probe: ETCD_PROBE_AUTH_TOKEN_FILE: ${file} is empty (it must hold the bearer token)\n`);
  });

  it('names the flag when the bad value came from a flag', async () => {
    const p = run({}, ['--timeout=5']);
    expect(await p.exit).toBe(78);
    expect(p.stderr()).toBe("etcd-probe: --timeout: '5' is not a duration (write it with a unit, e.g. 5s or 500ms)\n");
  });

  it('prints --help and exits 0, even beside a bad setting', async () => {
    const p = run({ ETCD_PROBE_TIMEOUT: 'abc' }, ['--help']);
    expect(await p.exit).toBe(0);
    expect(p.stdout()).toMatch(/--endpoints\s+ETCD_PROBE_ENDPOINTS/);
  });

  it('exits 78 naming ETCD_PROBE_LISTEN when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as import('node:net').AddressInfo;
    try {
      const p = run({ ...clusterEnv(cluster), ETCD_PROBE_LISTEN: `127.0.0.1:${port}` });
      expect(await p.exit).toBe(78);
      expect(p.stderr()).toMatch(new RegExp(`^etcd-probe: ETCD_PROBE_LISTEN: cannot listen on 127.0.0.1:${port}: .*EADDRINUSE`));
    } finally {
      blocker.close();
    }
  });

  it('serves, logs JSON without flooding info, and on SIGTERM lets the in-flight request finish and exits 0', async () => {
    const [port] = (await freePorts(1)) as [number];
    const p = run({ ...clusterEnv(cluster), ETCD_PROBE_LISTEN: `127.0.0.1:${port}`, ETCD_PROBE_TIMEOUT: '1s', ETCD_PROBE_CACHE_TTL: '0s' });
    const url = `http://127.0.0.1:${port}`;
    try {
      const first = await eventually(
        () => get(`${url}/healthz/etcd`).catch(() => null),
        (g) => g !== null,
        10_000,
      );
      expect(first?.status).toBe(200);
      const linesBefore = p.stdout().trim().split('\n').length;
      for (let i = 0; i < 20; i++) expect((await get(`${url}/healthz/etcd`)).status).toBe(200);
      const lines = p.stdout().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      // The start log says where it listens (issue 26): the URL a person can paste.
      const listening = lines.find((l) => String(l.msg).startsWith('etcd-probe listening'));
      expect(listening?.msg).toBe(`etcd-probe listening on ${url}`);
      expect(listening?.urls).toEqual([url]);
      // 20 requests and 20 rounds (TTL 0) log nothing per request at info. The only info lines allowed are
      // verdict changes, which a loaded machine can legitimately produce (a member slow for one round).
      const addedInfo = lines.slice(linesBefore).filter((l) => l.level === 'info');
      expect(addedInfo.filter((l) => !String(l.msg).startsWith('etcd verdict'))).toEqual([]);
      expect(addedInfo.length).toBeLessThan(5);

      // A hung member keeps the next round in flight for the whole 1 s deadline.
      const [hung, answering] = (await cluster.followerIndexes()) as [number, number];
      const statusCalls = await cluster.grpcStarted(answering, 'Status');
      cluster.pause(hung);
      const inFlight = get(`${url}/healthz/etcd`);
      // The round is in flight once a member that answers has been asked for its Status.
      await expect.poll(() => cluster.grpcStarted(answering, 'Status'), { timeout: 5000, interval: 20 }).toBeGreaterThan(statusCalls);
      const signalled = Date.now();
      p.child.kill('SIGTERM');
      const answered = await inFlight;
      expect(answered.status).toBe(200);
      expect(answered.body.status).toBe('degraded');
      expect(await p.exit).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(3000);
      expect(p.stdout()).toMatch(/"msg":"stopped"/);
      cluster.resume(hung);
    } finally {
      p.child.kill('SIGKILL');
      for (const [i, m] of cluster.members.entries()) if (m.paused) cluster.resume(i);
    }
  });

  it('with ETCD_PROBE_SHUTDOWN_DELAY, keeps serving after SIGTERM with /readyz 503 and the verdict unchanged, then exits 0', async () => {
    const [port] = (await freePorts(1)) as [number];
    const p = run({ ...clusterEnv(cluster), ETCD_PROBE_LISTEN: `127.0.0.1:${port}`, ETCD_PROBE_SHUTDOWN_DELAY: '1500ms' });
    const url = `http://127.0.0.1:${port}`;
    try {
      const first = await eventually(
        () => get(`${url}/readyz`).catch(() => null),
        (g) => g !== null,
        10_000,
      );
      expect(first?.status).toBe(200);
      const signalled = Date.now();
      p.child.kill('SIGTERM');
      // New connections during the drain: the service says it is going away, and etcd's verdict stays true.
      const readyz = await eventually(
        () => get(`${url}/readyz`, { headers: { connection: 'close' } }),
        (g) => g.status === 503,
        1000,
        20,
      );
      expect(Date.now() - signalled).toBeLessThan(1500);
      expect(readyz.status).toBe(503);
      expect(readyz.body).toEqual({ error: 'SHUTTING_DOWN', message: 'the service is shutting down' });
      expect(readyz.headers.get('connection')).toBe('close');
      const health = await get(`${url}/healthz/etcd`, { headers: { connection: 'close' } });
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('healthy');
      expect((await get(`${url}/livez`, { headers: { connection: 'close' } })).status).toBe(200);
      expect(await p.exit).toBe(0);
      const took = Date.now() - signalled;
      expect(took).toBeGreaterThanOrEqual(1500);
      expect(took).toBeLessThan(1500 + 3000);
      // After the drain the listener is gone.
      await expect(get(`${url}/livez`)).rejects.toThrow();
      expect(p.stdout()).toMatch(/"msg":"shutting down".*"delayMs":1500|"delayMs":1500.*"msg":"shutting down"/);
      expect(p.stdout()).toMatch(/"msg":"stopped"/);
    } finally {
      p.child.kill('SIGKILL');
    }
  });
});
