import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePorts } from '../fixtures/free-port.ts';

// `npm run demo` as a person runs it: through npm and scripts/setup/run.sh, keys typed on stdin, and stopped
// by a signal sent to the npm process (npm passes it on to its child only). Afterwards no process it started
// may remain, and its temp folder (under a TMPDIR of the test's own) must be gone.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Builds dist/, starts 3 members and etcd-probe, then the keys below: well under this on two cores. */
const DEMO_MS = 150_000;

interface Demo {
  readonly npm: ChildProcess;
  readonly tmp: string;
  readonly output: () => string;
  readonly exit: Promise<number | null>;
}

function startDemo(): Promise<Demo> {
  return freePorts(1).then(([port]) => {
    const tmp = mkdtempSync(join(tmpdir(), 'etcd-probe-demo-test-'));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_PROBE_') && !k.startsWith('npm_')));
    // The test's own Node first on PATH, as npm test leaves it; TMPDIR tells the demo's leftovers from others'.
    // npm 11 keeps Node's compile cache in TMPDIR (node-compile-cache): npm's own, off here so that it does
    // not pass for a leftover of the demo.
    const npm = spawn('npm', ['run', 'demo'], {
      cwd: ROOT,
      env: { ...env, PATH: `${dirname(process.execPath)}:${env.PATH}`, TMPDIR: tmp, NODE_DISABLE_COMPILE_CACHE: '1', ETCD_PROBE_LISTEN: `127.0.0.1:${port}` },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout!.on('data', (d) => (out += d));
    npm.stderr!.on('data', (d) => (out += d));
    const exit = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    return { npm, tmp, output: () => out, exit };
  });
}

/** Waits until the output after `from` matches, and returns the output from there on. */
async function waitFor(demo: Demo, pattern: RegExp, from = 0, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const tail = demo.output().slice(from);
    if (pattern.test(tail)) return tail;
    if (demo.npm.exitCode !== null) break;
    await delay(100);
  }
  throw new Error(`the demo did not print ${pattern} within ${timeoutMs}ms; it printed:\n${demo.output()}`);
}

/** Types keys, then waits for the verdict that follows them. */
async function press(demo: Demo, keys: string, verdict: RegExp): Promise<string> {
  const from = demo.output().length;
  demo.npm.stdin!.write(keys);
  return waitFor(demo, verdict, from);
}

/** Processes whose command line or environment names the folder: the demo's, its etcd members, etcd-probe. */
function processesUsing(folder: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const seen = `${readFileSync(`/proc/${pid}/cmdline`, 'utf8')}\0${readFileSync(`/proc/${pid}/environ`, 'utf8')}`;
      if (seen.includes(folder)) found.push(`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Sends the signal to npm; then npm must exit 0 and nothing of the demo may be left (checked unless the keys failed). */
async function stopAndCheck(demo: Demo, signal: 'SIGINT' | 'SIGTERM', keysFailed: boolean): Promise<void> {
  demo.npm.kill(signal);
  const code = await Promise.race([demo.exit, delay(30_000).then(() => 'still running after 30s')]);
  // Every child has been reaped by the time npm exits: nothing may still use the folder.
  const left = processesUsing(demo.tmp);
  const files = readdirSync(demo.tmp);
  // Whatever happened, nothing this test started outlives it.
  for (const found of left) process.kill(Number(found.split(':')[0]), 'SIGKILL');
  rmSync(demo.tmp, { recursive: true, force: true });
  if (keysFailed) return;
  expect(code).toBe(0);
  expect(demo.output()).toMatch(new RegExp(`^stopping \\(${signal}\\): etcd-probe, the etcd members, and `, 'm'));
  expect(left).toEqual([]);
  expect(files).toEqual([]);
}

/** Runs the keys, then stops the demo with the signal and checks what is left, whatever happened before. */
async function withDemo(signal: 'SIGINT' | 'SIGTERM', keys: (demo: Demo) => Promise<void>): Promise<void> {
  const demo = await startDemo();
  let failed = true;
  try {
    await keys(demo);
    failed = false;
  } finally {
    await stopAndCheck(demo, signal, failed);
  }
}

describe('npm run demo', () => {
  it(
    'hangs, continues, fills and heals members from single keys, then stops on SIGINT to npm, leaving nothing behind',
    async () => {
      await withDemo('SIGINT', async (demo) => {
        const banner = await waitFor(demo, /^ready: m3 is picked\.$/m, 0, 120_000);
        expect(banner).toMatch(/^demo: pid \d+ /m);
        expect(banner).toMatch(/^ {2}verdict: healthy$/m);
        expect([...banner.matchAll(/^ {2}m\d: pid (\d+), https:/gm)]).toHaveLength(3);

        expect(await press(demo, '3s', /verdict after [\d.]+s: degraded: [^\n]*MEMBER_UNREACHABLE m3/)).toMatch(/^m3: kill -STOP \d+ /m);
        expect(await press(demo, 'c', /verdict after [\d.]+s: healthy\n/)).toMatch(/^m3: kill -CONT \d+$/m);

        const filled = await press(demo, '1f', /verdict after [\d.]+s: unhealthy: [^\n]*ALARM_NOSPACE/);
        expect(filled).toMatch(/^m1: \d+ writes \([\d.]+ MiB\), then etcd answered: .*database space exceeded$/m);
        const healed = await press(demo, 'd', /verdict after [\d.]+s: healthy\n/);
        // Each etcdctl command is printed as it ran.
        for (const step of ['-w json del --prefix demo/fill/', 'compact --physical \\d+', 'defrag --cluster', 'alarm disarm']) {
          expect(healed).toMatch(new RegExp(`^ {2}\\$ etcdctl --endpoints=https://\\S+ --cacert=\\S+ --cert=\\S+ --key=\\S+ ${step}$`, 'm'));
        }
        expect(healed).toMatch(/alarm:NOSPACE/);
        // Nothing left to heal: said in words, not a raw etcdctl error (issue 26).
        const from = demo.output().length;
        demo.npm.stdin!.write('d');
        const again = await waitFor(demo, /nothing to heal: no NOSPACE alarm is raised and no demo key is stored/, from);
        expect(again).not.toMatch(/Error:|compact --physical/);
      });
    },
    DEMO_MS,
  );

  it(
    'kills and restarts a member, then stops on SIGTERM to npm, leaving nothing behind',
    async () => {
      await withDemo('SIGTERM', async (demo) => {
        await waitFor(demo, /^ready: /m, 0, 120_000);
        expect(await press(demo, '2k', /verdict after [\d.]+s: degraded: [^\n]*MEMBER_UNREACHABLE m2/)).toMatch(/^m2: kill -KILL \d+ /m);
        expect(await press(demo, 'r', /verdict after [\d.]+s: healthy\n/)).toMatch(/^m2: started again, pid \d+, on its data dir/m);
      });
    },
    DEMO_MS,
  );
});
