// `npm run demo`: a local 3-member etcd cluster with TLS (the test fixture's) and etcd-probe against it,
// and keys that break and heal the cluster while you watch the verdict. Ctrl-C, q, or SIGINT/SIGTERM to
// this process or to `npm run demo` stops everything and removes the temp folder.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { killEtcdctl } from './etcdctl.ts';
import { CTRL_C, CTRL_D, readKeys, type StopReading } from './keys.ts';
import { continueMember, fillQuota, healQuota, killMember, startMember, stopMember } from './member-actions.ts';
import { VerdictWatch } from './verdict-watch.ts';
import { startFlags } from '#lab/service/start-flags.ts';

/** Small, so that filling it takes seconds; etcd-probe is told the same quota. */
const QUOTA_BYTES = 8 * 2 ** 20;
const SIZE = 3;

const listen = process.env.ETCD_PROBE_LISTEN ?? '127.0.0.1:8080';
const base = `http://${listen.replace(/^0\.0\.0\.0:|^:/, '127.0.0.1:')}`;
const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

// Our own folder, so that it goes even when the cluster never started; the fixture's exit hook has killed
// every etcd it started by the time this one runs (exit listeners run in the order they were added).
const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-demo-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

let cluster: EtcdCluster | null = null;
let service: ReturnType<typeof spawn> | null = null;
let stopReading: StopReading = () => {};
let stopping = false;

async function stop(why: string, code = 0): Promise<never> {
  if (!stopping) {
    stopping = true;
    stopReading();
    print(`\nstopping (${why}): etcd-probe, the etcd members, and ${dir}`);
    killEtcdctl();
    if (service && service.exitCode === null && service.signalCode === null) {
      const exited = new Promise((resolve) => service!.once('exit', resolve));
      service.kill('SIGTERM');
      await Promise.race([exited, delay(5000).then(() => service!.kill('SIGKILL'))]);
    }
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));

print(`demo: pid ${process.pid} (Ctrl-C, q, or kill -TERM ${process.pid} stops it and everything it started)`);
print(`starting a ${SIZE}-member etcd cluster with TLS and a ${QUOTA_BYTES / 2 ** 20} MiB quota in ${dir}...`);
try {
  cluster = await EtcdCluster.start({ size: SIZE, quotaBackendBytes: QUOTA_BYTES, dir });
} catch (error) {
  print(`could not start etcd: ${(error as Error).message}`);
  await stop('etcd did not start', 1);
}
const c = cluster!;
const pki = c.pki!;
const logFile = join(dir, 'etcd-probe.log');
const settings = {
  ETCD_PROBE_ENDPOINTS: c.endpoints,
  ETCD_PROBE_CACERT: pki.caFile,
  ETCD_PROBE_CERT: pki.clientCertFile,
  ETCD_PROBE_KEY: pki.clientKeyFile,
  ETCD_PROBE_LISTEN: listen,
  ETCD_PROBE_QUOTA_BYTES: String(QUOTA_BYTES),
};
const log = openSync(logFile, 'a');
service = spawn(process.execPath, [...startFlags(), fileURLToPath(new URL('../../dist/main.js', import.meta.url))], {
  env: { ...process.env, ...settings },
  stdio: ['ignore', log, log],
});
closeSync(log);
service.once('exit', (code, signal) => {
  if (stopping) return;
  print(`etcd-probe exited (${signal ?? `code ${code}`}); the end of its log:`);
  print(readFileSync(logFile, 'utf8').split('\n').slice(-6).join('\n'));
  void stop('etcd-probe exited', 1);
});

// Ready when /readyz answers 200: the listener is up (readiness never depends on etcd's health).
for (const deadline = Date.now() + 30_000; !stopping; await delay(100)) {
  const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
  if (ready) break;
  if (Date.now() > deadline) await stop(`etcd-probe was not ready on ${base} within 30s`, 1);
}

const members = c.members.map((m) => `${m.name}: pid ${m.process?.pid}, ${m.clientUrl}`).join('\n  ');
const keys = `Keys (type them here; a pipe works too):
  1-${SIZE}  pick the member the next keys act on
  s  stop it (SIGSTOP: hung)       c  continue it (SIGCONT)
  k  kill it (SIGKILL)             r  start it again after k
  f  fill the quota through it until etcd raises NOSPACE
  d  heal the quota with etcdctl: delete, compact, defragment, disarm
  v  the verdict now               h  these keys       q  quit`;
print(`
etcd cluster (data, certificates and logs in ${dir}):
  ${members}

etcd-probe on ${base} (its log: ${logFile}), configured with:
${Object.entries(settings).map(([k, v]) => `  ${k}=${v}`).join('\n')}

Look:
  open ${base}/ in a browser       # the status page
  curl -s ${base}/healthz/etcd | jq
  curl -s '${base}/healthz/etcd?verbose'
  curl -s ${base}/members | jq
  curl -s ${base}/alarms | jq
  curl -s ${base}/metrics | grep ^etcd_probe_
  node dist/main.js check --endpoints=${c.endpoints} --cacert=${pki.caFile} --cert=${pki.clientCertFile} --key=${pki.clientKeyFile}

${keys}
`);

const watch = new VerdictWatch(base, print);
let selected = SIZE - 1;
let queue: Promise<unknown> = Promise.resolve();

/** Runs one action after the ones before it; when it changed something, shows the verdict settle. */
function enqueue(action: () => boolean | Promise<boolean>): void {
  queue = queue.then(async () => {
    if (stopping) return;
    try {
      if (await action()) await watch.settle();
    } catch (error) {
      print(`  failed: ${(error as Error).message}`);
    }
  });
}

function onKey(key: string): void {
  if (key === CTRL_C) return void stop('Ctrl-C');
  if (key === CTRL_D || key === 'q') return void stop('q');
  const digit = Number(key);
  if (Number.isInteger(digit) && digit >= 1 && digit <= SIZE) {
    selected = digit - 1;
    return print(`${c.member(selected).name} picked`);
  }
  const actions: Record<string, () => boolean | Promise<boolean>> = {
    s: () => stopMember(c, selected, print),
    c: () => continueMember(c, selected, print),
    k: () => killMember(c, selected, print),
    r: () => startMember(c, selected, print),
    f: () => fillQuota(c, selected, QUOTA_BYTES, print),
    d: () => healQuota(c, print),
    v: () => watch.now().then(() => false),
  };
  const action = actions[key];
  if (action) enqueue(action);
  else if (key === 'h' || key === '?') print(keys);
  else print(`unknown key ${JSON.stringify(key)} (h lists the keys)`);
}

await watch.now().catch((error: Error) => print(`  verdict: ${error.message}`));
if (!stopping) {
  print(`ready: ${c.member(selected).name} is picked.`);
  stopReading = readKeys(process.stdin, onKey);
}
