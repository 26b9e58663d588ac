import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../src/cli/load-config.ts';
import { historyLimitsOf, thresholdsOf } from '../../src/core/probe-core.ts';
import { StaticSource } from '../../src/discovery/static-source.ts';
import { Prober } from '../../src/probe/prober.ts';
import { fixedTls } from '../../src/tls/tls-provider.ts';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// How much a probe round allocates (what the garbage collector must then collect), and how much of it
// judging the round takes (the view, the verdict, the history checks) beside the calls (etcd3, gRPC, HTTP/2). A
// prober in this process on a real TLS cluster of N members (default 3), V8's sampling heap profiler
// counting objects collected since: allocations, not what stays live. Not a timed test; a script.
//   node --experimental-strip-types scripts/bench/round-allocations.ts [members] [rounds] [--profile=file]

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

const [members = 3, rounds = 300] = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number);
const profileFile = process.argv.find((a) => a.startsWith('--profile='))?.slice('--profile='.length);

const SRC = pathToFileURL(new URL('../../src/', import.meta.url).pathname).href;

/** Bytes allocated in all, while judging (under RoundJudge's judge: the view, the verdict, history), and under each of our functions (inclusive). */
function shares(root: ProfileNode): { total: number; judging: number; top: [string, number][] } {
  const byFunction = new Map<string, number>();
  let total = 0;
  let judging = 0;
  const walk = (node: ProfileNode, ours: ReadonlySet<string>, inJudge: boolean): void => {
    const { functionName, url } = node.callFrame;
    const mine = url.startsWith(SRC);
    const name = `${functionName || '(anonymous)'} ${url.slice(SRC.length - 'src/'.length)}`;
    const now = mine ? new Set([...ours, name]) : ours;
    const judge = inJudge || (mine && functionName === 'judge' && url.endsWith('/probe/round-judge.ts'));
    total += node.selfSize;
    if (judge) judging += node.selfSize;
    for (const f of now) byFunction.set(f, (byFunction.get(f) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, now, judge);
  };
  walk(root, new Set(), false);
  return { total, judging, top: [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 8) };
}

const cluster = await EtcdCluster.start({ size: members, tls: true });
try {
  const loaded = loadConfig({ env: { ...clusterEnv(cluster), ETCD_PROBE_TIMEOUT: '2s' }, argv: [], now: new Date() });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const { config, tls } = loaded;
  const source = new StaticSource({ endpoints: config.endpoints, discover: true, tls: fixedTls(tls), timeoutMs: config.timeoutMs });
  const prober = new Prober({ source, thresholds: thresholdsOf(config), history: historyLimitsOf(config), now: Date.now });
  try {
    for (let i = 0; i < 50; i++) await prober.round();
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    const statuses = new Set<string>();
    for (let i = 0; i < rounds; i++) statuses.add((await prober.round()).verdict.status);
    const { profile } = await session.post('HeapProfiler.stopSampling');
    session.disconnect();
    if (profileFile) writeFileSync(profileFile, JSON.stringify(profile));
    const { total, judging, top } = shares(profile.head as unknown as ProfileNode);
    const kib = (bytes: number) => (bytes / 1024 / rounds).toFixed(1);
    const lines = [
      `${members}-member TLS cluster (etcd ${process.env.ETCD_BIN ?? 'from PATH'}), ${rounds} rounds after 50 (history ${50 + rounds} rounds), verdicts: ${[...statuses].join(', ')}`,
      `allocated per round: ${kib(total)} KiB in all (etcd3, gRPC, HTTP/2, TLS and ours); judging the round (view, verdict, history checks, record): ${kib(judging)} KiB (${((100 * judging) / total).toFixed(0)} %)`,
      'largest of our (src/) functions, inclusive (what they allocate and what they call does), KiB per round:',
      ...top.map(([name, bytes]) => `  ${kib(bytes).padStart(7)}  ${name}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    prober.close();
    await source.close();
  }
} finally {
  await cluster.stop();
}
