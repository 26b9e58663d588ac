import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePorts } from '#lab/ports/free-port.ts';
import { SharedCluster } from '#lab/etcd/shared-cluster.ts';

// The README's third command ("To run it against your own cluster … npm start") as a person runs it from
// a fresh clone: no node_modules, no dist/ (issue 26: it printed `sh: 1: tsc: not found`). The copy holds
// the repository's files only; `npm ci` runs from npm's cache (npm_config_offline), so that the test asks
// no registry: the packages are the lockfile's either way.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** npm ci from the cache and building dist/ on two busy cores, then the first round. */
const START_MS = 120_000;
const cluster = SharedCluster.get();

/** The README's command block after "To run it against your own cluster:", up to `npm start`. */
function readmeStartCommand(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /To run it against your own cluster[\s\S]*?\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no sh block after "To run it against your own cluster"');
  const lines = block.split('\n');
  const end = lines.findIndex((l) => l.trim() === 'npm start');
  expect(end, 'the block runs npm start').toBeGreaterThan(0);
  return lines.slice(0, end + 1).join('\n');
}

/** The command with the README's example values replaced by the test cluster's, and nothing else changed. */
function forCluster(command: string): string {
  const values: Record<string, string> = {
    ETCD_PROBE_ENDPOINTS: cluster.endpoints,
    ETCD_PROBE_CACERT: cluster.pki.caFile,
    ETCD_PROBE_CERT: cluster.pki.clientCertFile,
    ETCD_PROBE_KEY: cluster.pki.clientKeyFile,
  };
  let replaced = 0;
  const result = command.replace(/^(ETCD_PROBE_[A-Z_]+)=\S+ \\$/gm, (line, name: string) => {
    const value = values[name];
    if (value === undefined) return line;
    replaced += 1;
    return `${name}=${value} \\`;
  });
  expect(replaced, 'the README sets endpoints, CA, certificate and key').toBe(4);
  return result;
}

describe("the README's npm start against your own cluster", () => {
  it('builds and answers healthy from a clone without dist/', { timeout: START_MS + 60_000 }, async () => {
    const copy = mkdtempSync(join(tmpdir(), 'etcd-probe-readme-start-'));
    try {
      cpSync(ROOT, copy, { recursive: true, filter: (src) => !/\/(node_modules|dist|\.git|bench|coverage|test-results)$/.test(src) });
      expect(existsSync(join(copy, 'dist'))).toBe(false);
      expect(existsSync(join(copy, 'node_modules'))).toBe(false);

      const [port] = (await freePorts(1)) as [number];
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_PROBE_') && !k.startsWith('npm_')));
      const npm = spawn('sh', ['-c', forCluster(readmeStartCommand())], {
        cwd: copy,
        env: { ...env, PATH: `${dirname(process.execPath)}:${env.PATH}`, ETCD_PROBE_LISTEN: `127.0.0.1:${port}`, npm_config_offline: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let out = '';
      npm.stdout.on('data', (d) => (out += d));
      npm.stderr.on('data', (d) => (out += d));
      const exit = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
      try {
        let answer: { status: number; body: { status?: string } } | null = null;
        const deadline = Date.now() + START_MS;
        while (Date.now() < deadline && npm.exitCode === null) {
          const res = await fetch(`http://127.0.0.1:${port}/healthz/etcd`).catch(() => null);
          if (res) {
            answer = { status: res.status, body: (await res.json()) as { status?: string } };
            break;
          }
          await delay(250);
        }
        expect(answer, `npm start printed:\n${out}`).toEqual({ status: 200, body: expect.objectContaining({ status: 'healthy' }) });
        expect(out).not.toMatch(/not found/);
        expect(out).toMatch(/setup: node_modules is missing or older than package-lock.json: npm ci/);
        expect(existsSync(join(copy, 'dist', 'main.js'))).toBe(true);
      } finally {
        // The shell execs npm, npm's script execs run.sh, run.sh execs node: the group is the service.
        if (npm.exitCode === null && npm.pid !== undefined) process.kill(-npm.pid, 'SIGTERM');
        expect(await Promise.race([exit, delay(30_000).then(() => 'still running after 30s')])).not.toBe('still running after 30s');
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
