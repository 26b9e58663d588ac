import type { EtcdCluster } from '../../test/fixtures/etcd-cluster.ts';
import { etcdctl } from './etcdctl.ts';

// What the demo's keys do to the cluster: hang, continue, kill and start a member, fill the quota until
// etcd raises NOSPACE, and heal it with etcdctl. Each prints what it did; none throws for a member in the
// wrong state, it says so instead.

/** Where the demo's own writes go, so that healing deletes exactly them. */
export const FILL_PREFIX = 'demo/fill/';

/** Each write while filling: big, so that a small quota fills in seconds. */
const FILL_VALUE_BYTES = 512 * 1024;

type Print = (line: string) => void;

function stateOf(cluster: EtcdCluster, index: number): 'running' | 'stopped' | 'killed' {
  const m = cluster.member(index);
  if (!m.process) return 'killed';
  return m.paused ? 'stopped' : 'running';
}

/** SIGSTOP: the member keeps its sockets open and answers nothing, like a hung process. */
export function stopMember(cluster: EtcdCluster, index: number, print: Print): boolean {
  const m = cluster.member(index);
  const state = stateOf(cluster, index);
  if (state !== 'running') {
    print(`${m.name} is ${state} already`);
    return false;
  }
  cluster.pause(index);
  print(`${m.name}: kill -STOP ${m.process?.pid} (hung: its port is open, it answers nothing)`);
  return true;
}

/** SIGCONT a member stopped by stopMember. */
export function continueMember(cluster: EtcdCluster, index: number, print: Print): boolean {
  const m = cluster.member(index);
  if (stateOf(cluster, index) !== 'stopped') {
    print(`${m.name} is not stopped (it is ${stateOf(cluster, index)})`);
    return false;
  }
  cluster.resume(index);
  print(`${m.name}: kill -CONT ${m.process?.pid}`);
  return true;
}

/** SIGKILL a member; its data stays, so startMember brings it back. */
export async function killMember(cluster: EtcdCluster, index: number, print: Print): Promise<boolean> {
  const m = cluster.member(index);
  const pid = m.process?.pid;
  if (stateOf(cluster, index) === 'killed') {
    print(`${m.name} is not running`);
    return false;
  }
  await cluster.kill(index);
  print(`${m.name}: kill -KILL ${pid} (its data dir stays; r starts it again)`);
  return true;
}

/** Starts a killed member again on its data dir and waits until it reports healthy. */
export async function startMember(cluster: EtcdCluster, index: number, print: Print): Promise<boolean> {
  const m = cluster.member(index);
  const state = stateOf(cluster, index);
  if (state !== 'killed') {
    print(`${m.name} is ${state}: ${state === 'stopped' ? 'c continues it' : 'k kills it first'}`);
    return false;
  }
  // restart() spawns at once (the member is not running), so a stop that comes later finds the process.
  const started = cluster.restart(index);
  print(`${m.name}: started again, pid ${m.process?.pid}, on its data dir; waiting until it is healthy...`);
  await started;
  return true;
}

/** Writes big values through one member until etcd refuses with NOSPACE (or something else fails). */
export async function fillQuota(cluster: EtcdCluster, index: number, quotaBytes: number, print: Print): Promise<boolean> {
  const m = cluster.member(index);
  if (stateOf(cluster, index) !== 'running') {
    print(`${m.name} is ${stateOf(cluster, index)}: pick a running member to write through`);
    return false;
  }
  print(`${m.name}: writing ${FILL_VALUE_BYTES / 1024} KiB values under ${FILL_PREFIX} until the ${quotaBytes / 2 ** 20} MiB quota is full...`);
  const client = cluster.client(index);
  const value = Buffer.alloc(FILL_VALUE_BYTES, 'x');
  let written = 0;
  try {
    // Far more than the quota holds: the loop ends on etcd's refusal, not on its count.
    for (; written < (4 * quotaBytes) / FILL_VALUE_BYTES; written++) await client.put(`${FILL_PREFIX}${written}`).value(value);
    print(`${m.name}: etcd took ${written} writes without refusing; is the quota larger than it says?`);
  } catch (error) {
    const message = (error as Error).message;
    print(`${m.name}: ${written} writes (${(written * FILL_VALUE_BYTES) / 2 ** 20} MiB), then etcd answered: ${message}`);
  } finally {
    client.close();
  }
  return true;
}

/** Frees the space and disarms NOSPACE, as the reason's hint says: delete, compact, defragment, disarm. */
export async function healQuota(cluster: EtcdCluster, print: Print): Promise<boolean> {
  print('healing the quota with etcdctl (etcd-probe itself never writes):');
  const show = (output: string) => {
    for (const line of output.split('\n').filter(Boolean)) print(`    ${line}`);
  };
  const deleted = await etcdctl(cluster, ['-w', 'json', 'del', '--prefix', FILL_PREFIX], print);
  show(deleted.output);
  const revision = /"revision":(\d+)/.exec(deleted.output)?.[1];
  if (deleted.code !== 0 || !revision) {
    print('  could not delete the demo keys; the alarm stays');
    return false;
  }
  // etcdctl's JSON leaves out a count of 0, as protobuf's JSON does.
  if (Number(/"deleted":(\d+)/.exec(deleted.output)?.[1] ?? 0) === 0) {
    // No demo key was left: heal only if NOSPACE is raised anyway (filled by someone else), else say so.
    const alarms = await etcdctl(cluster, ['alarm', 'list'], print);
    show(alarms.output || '(no alarm)');
    if (alarms.code === 0 && !/NOSPACE/.test(alarms.output)) {
      print("  nothing to heal: no NOSPACE alarm is raised and no demo key is stored (f fills the picked member's quota first)");
      return false;
    }
  }
  for (const args of [['compact', '--physical', revision], ['defrag', '--cluster'], ['alarm', 'disarm']]) {
    const run = await etcdctl(cluster, args, print);
    show(run.output || '(no output)');
    // A revision compacted already leaves nothing to compact; defrag fails for a member that is down;
    // disarming is still right for the ones that are up.
    const harmless = (args[0] === 'compact' && /required revision has been compacted/.test(run.output)) || args[0] === 'defrag';
    if (run.code !== 0 && !harmless) return false;
  }
  return true;
}
