import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_COLUMNS } from '../../src/cli/status-table.ts';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { checkResponse } from '../helpers/openapi.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// `etcd-probe check` as a process against a real 3-member TLS cluster: exit codes by verdict, the table,
// -o json against openapi.yaml, config errors, help; and the package's bin built by tsc.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'src/main.ts');
/** A check that has not exited by then hangs on an open handle (it takes well under a second here). */
const HANG_MS = 15_000;

let cluster: EtcdCluster;

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

function run(args: string[], env: Record<string, string> = {}, command: string[] = [process.execPath, '--experimental-strip-types', '--no-warnings', MAIN]): Promise<Ran> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_PROBE_')));
  const started = performance.now();
  const [file, ...pre] = command as [string, ...string[]];
  const child = spawn(file, [...pre, ...args], { env: { ...clean, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`etcd-probe ${args.join(' ')} did not exit within ${HANG_MS} ms; stderr: ${stderr}`));
    }, HANG_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** Data rows of the table: the lines between the header's closing border and the last border. */
function tableRows(stdout: string): string[][] {
  const lines = stdout.split('\n');
  const borders = lines.flatMap((l, i) => (l.startsWith('+-') ? [i] : []));
  return lines.slice((borders[1] as number) + 1, borders[2]).map((l) => l.slice(1, -1).split('|').map((c) => c.trim()));
}

const column = (name: (typeof STATUS_COLUMNS)[number]) => STATUS_COLUMNS.indexOf(name);

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
});

afterAll(async () => {
  await cluster?.stop();
});

describe('etcd-probe check against a real cluster', () => {
  it('exits 0 on a healthy cluster with a table of the 3 members, one leader, and the verdict', async () => {
    const r = await run(['check', '--timeout=1s'], clusterEnv(cluster));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = tableRows(r.stdout);
    expect(rows).toHaveLength(3);
    expect(rows.map((row) => row[column('ENDPOINT')]).sort()).toEqual(cluster.members.map((m) => m.clientUrl).sort());
    const leaders = rows.filter((row) => row[column('IS LEADER')] === 'true');
    expect(leaders).toHaveLength(1);
    const leaderIndex = await cluster.leaderIndex();
    expect(r.stdout).toContain(`\nleader: ${cluster.member(leaderIndex).name} (${leaders[0]?.[column('ID')]})\n`);
    expect(leaders[0]?.[column('ENDPOINT')]).toBe(cluster.member(leaderIndex).clientUrl);
    for (const row of rows) {
      expect(row[column('ID')]).toMatch(/^[0-9a-f]{1,16}$/);
      expect(row[column('VERSION')]).toMatch(/^3\.\d+\.\d+$/);
      expect(Number(row[column('RAFT INDEX')])).toBeGreaterThan(0);
      expect(row[column('ERRORS')]).toBe('');
    }
    expect(r.stdout).toContain('\nstatus: healthy\n');
    expect(r.stdout).toContain('\nquorum: 3 of 3 voting members healthy, can lose 1 more\n');
    expect(r.stdout).toContain('\nreasons: none\n');
    console.log(`check on a healthy cluster: exit ${r.code} after ${r.ms.toFixed(0)} ms (process start to exit)`);
  });

  it('prints exactly the /healthz/etcd document with -o json, valid against openapi.yaml, and logs nothing to stdout', async () => {
    const r = await run(['check', '-o', 'json'], { ...clusterEnv(cluster), ETCD_PROBE_LOG_LEVEL: 'debug' });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({ status: 'healthy', policy: 'quorum', mode: 'static', reasons: [] });
    expect(body.quorum).toEqual({ members: 3, voting: 3, required: 2, answering: 3, healthyVoting: 3, confirmed: true, faultTolerance: 1 });
    expect(checkResponse('GET', '/healthz/etcd', { status: 200, contentType: 'application/json', body })).toEqual([]);
  });

  it('exits 78 with one line naming the variable when a setting is bad, printing nothing on stdout', async () => {
    const r = await run(['check'], { ...clusterEnv(cluster), ETCD_PROBE_TIMEOUT: '5' });
    expect(r.code).toBe(78);
    expect(r.stderr).toBe("etcd-probe: ETCD_PROBE_TIMEOUT: '5' is not a duration (write it with a unit, e.g. 5s or 500ms)\n");
    expect(r.stdout).toBe('');
  });

  it('exits 78 naming a bad flag, a bad output format and an unknown command', async () => {
    const flag = await run(['check', '--endpoint=http://127.0.0.1:2379']);
    expect(flag.code).toBe(78);
    expect(flag.stderr).toBe('etcd-probe: --endpoint: unknown flag (did you mean --endpoints?)\n');
    const output = await run(['check', '-o', 'yaml'], clusterEnv(cluster));
    expect(output.code).toBe(78);
    expect(output.stderr).toBe("etcd-probe: -o: 'yaml' is not an output format (use table or json)\n");
    const command = await run(['status'], clusterEnv(cluster));
    expect(command.code).toBe(78);
    expect(command.stderr).toBe('etcd-probe: status: unknown command (the commands are serve and check; etcd-probe --help)\n');
  });

  it.each([
    [[], 'Usage: etcd-probe [serve|check] [flags]'],
    [['serve'], 'Usage: etcd-probe [serve] [flags]'],
    [['check'], 'Usage: etcd-probe check [-o table|json] [--can-stop MEMBER] [flags]'],
  ])('prints help for %j --help and exits 0', async (command, first) => {
    const r = await run([...command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(first);
    expect(r.stdout).toMatch(/--endpoints\s+ETCD_PROBE_ENDPOINTS/);
    expect(r.stderr).toBe('');
  });

  it.each([[['--version']], [['-v']], [['check', '--version']]])('prints the version from package.json for %j and exits 0, whatever the settings', async (args) => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await run(args, { ETCD_PROBE_TIMEOUT: 'not a duration' });
    expect(r).toMatchObject({ code: 0, stdout: `etcd-probe ${version}\n`, stderr: '' });
  });

  it('--can-stop on a healthy cluster: exits 0 for a follower and for the leader (naming the election), 78 for no such member', async () => {
    const leader = cluster.member(await cluster.leaderIndex()).name;
    const [follower] = (await cluster.followerIndexes()) as [number];
    const safe = await run(['check', '--can-stop', cluster.member(follower).name, '--timeout=1s'], clusterEnv(cluster));
    expect(safe.code).toBe(0);
    expect(safe.stdout).toMatch(new RegExp(`^${cluster.member(follower).name} \\([0-9a-f]+\\): safe to stop\\nafter: degraded; 2 of 3 voting members healthy, 2 required\\n`));
    const ofLeader = await run(['check', `--can-stop=${leader}`, '--timeout=1s', '-o', 'json'], clusterEnv(cluster));
    expect(ofLeader.code).toBe(0);
    expect(JSON.parse(ofLeader.stdout).reasons.map((r: { code: string }) => r.code)).toContain('LEADER_STOP_COSTS_ELECTION');
    const unknown = await run(['check', '--can-stop', 'nobody', '--timeout=1s'], clusterEnv(cluster));
    expect(unknown.code).toBe(78);
    expect(unknown.stderr).toMatch(/^etcd-probe: --can-stop: no member has that name or ID; members: .*m2 \([0-9a-f]+\)/);
    expect(unknown.stdout).toBe('');
  });

  it('exits 1 (degraded) with one member killed, naming it in the table and the reasons; --can-stop: 1 for the others, 0 for the dead one', async () => {
    const [victim] = (await cluster.followerIndexes()) as [number];
    await cluster.kill(victim);
    const alive = cluster.members.find((m) => m.process !== null)?.name as string;
    expect((await run(['check', '--can-stop', alive, '--timeout=1s'], clusterEnv(cluster))).code).toBe(1);
    expect((await run(['check', '--can-stop', cluster.member(victim).name, '--timeout=1s'], clusterEnv(cluster))).code).toBe(0);
    const url = cluster.member(victim).clientUrl;
    const r = await run(['check', '--timeout=1s'], clusterEnv(cluster));
    expect(r.code).toBe(1);
    const rows = tableRows(r.stdout);
    expect(rows).toHaveLength(3);
    const dead = rows.find((row) => row[column('ENDPOINT')] === url);
    expect(dead?.[column('VERSION')]).toBe('');
    expect(dead?.[column('ERRORS')]).toMatch(/^CONNECTION_REFUSED: /);
    expect(r.stdout).toContain('\nstatus: degraded\n');
    expect(r.stdout).toMatch(new RegExp(`\\n {2}MEMBER_UNREACHABLE \\(degraded\\): ${cluster.member(victim).name} at `));
    const json = await run(['check', '--output=json', '--timeout=1s'], clusterEnv(cluster));
    expect(json.code).toBe(1);
    const body = JSON.parse(json.stdout);
    expect(body.status).toBe('degraded');
    expect(checkResponse('GET', '/healthz/etcd', { status: 200, contentType: 'application/json', body })).toEqual([]);
  });

  it('exits 2 (unhealthy) with 2 of 3 members killed', async () => {
    const alive = cluster.members.flatMap((m, i) => (m.process ? [i] : []));
    await cluster.kill(alive[0] as number);
    const r = await run(['check', '--timeout=1s'], clusterEnv(cluster));
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('\nstatus: unhealthy\n');
    expect(r.stdout).toMatch(/\n {2}QUORUM_LOST \(unhealthy\): /);
    const canStop = await run(['check', '--can-stop', cluster.members.find((m) => m.process !== null)?.name as string, '--timeout=1s'], clusterEnv(cluster));
    expect(canStop.code).toBe(2);
    expect(canStop.stdout).toContain('NOT safe to stop (the cluster is unhealthy now)');
    console.log(`check with quorum lost: exit ${r.code} after ${r.ms.toFixed(0)} ms`);
  });
});

describe('the package bin', () => {
  it('is dist/main.js, which tsc builds from src/main.ts with its shebang, and runs as an executable', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ 'etcd-probe': 'dist/main.js' });
    // Inside the project, so that the built files resolve the project's node_modules.
    const out = mkdtempSync(join(ROOT, 'dist-bin-test-'));
    try {
      const tsc = spawnSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out], { encoding: 'utf8' });
      expect(tsc.stdout + tsc.stderr).toBe('');
      const main = join(out, 'main.js');
      expect(readFileSync(main, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
      chmodSync(main, 0o755);
      // The shebang's `node` must be Node ≥ 22: put the test's own first on PATH.
      const env = { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH}` };
      const help = spawnSync(main, ['check', '--help'], { encoding: 'utf8', env });
      expect(help.stderr).toBe("");
      expect(help.status).toBe(0);
      expect(help.stdout.split('\n')[0]).toBe('Usage: etcd-probe check [-o table|json] [--can-stop MEMBER] [flags]');
      // package.json is found from the built files too (two levels up from dist/cli, as in the image).
      const version = spawnSync(main, ['--version'], { encoding: 'utf8', env });
      expect(version.stdout).toBe(`etcd-probe ${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
