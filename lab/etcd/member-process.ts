import { stopProcess } from '#lab/process/stop.ts';
import { spawnEtcd } from './binary.ts';
import { memberArgs, type ClusterFlags, type ClusterMember } from './member.ts';

// Lab: what an EtcdCluster does to one member's process — start it, end it with a signal, freeze and
// thaw it — keeping the member's `process` and `paused` fields true to what the process is doing.

/** Starts a member's etcd (again, on its data dir), behind a launcher such as `ip netns exec <ns>`. */
export function spawnMember(m: ClusterMember, flags: ClusterFlags, launcher: readonly string[], binary: string | undefined): void {
  m.process = spawnEtcd(memberArgs(m, flags), m.logFile, launcher, binary);
  m.paused = false;
}

/**
 * Sends SIGKILL or SIGTERM (on SIGTERM etcd commits its backend on the way out) and waits for the exit.
 * A paused member is continued first, or it could not act on SIGTERM. Does nothing to a stopped member.
 */
export async function endMember(m: ClusterMember, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  const child = m.process;
  if (!child) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (m.paused) child.kill('SIGCONT');
  child.kill(signal);
  await exited;
  m.process = null;
  m.paused = false;
}

/** SIGSTOPs a member and returns once all its threads are stopped: its sockets stay open, it answers nothing. */
export function pauseMember(m: ClusterMember): void {
  const pid = m.process?.pid;
  if (pid !== undefined) stopProcess(pid, m.name);
  m.paused = true;
}

/** SIGCONTs a paused member. */
export function resumeMember(m: ClusterMember): void {
  m.process?.kill('SIGCONT');
  m.paused = false;
}
