import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

// Lab: runs the real `etcd` binary (from PATH, or ETCD_BIN). Every process started here is
// SIGKILLed by the exit hook if a test run dies before its fixture stops it.

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) {
    try {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** The etcd binary the fixture runs. */
export function etcdBinary(): string {
  return process.env.ETCD_BIN ?? 'etcd';
}

/** The version of the etcd binary (ETCD_BIN's by default), or a clear error when there is none. */
export function etcdVersion(binary = etcdBinary()): string {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new Error(
      `cannot run '${binary}': ${result.error?.message ?? result.stderr}. ` +
        'The integration tests need etcd 3.4 or later on PATH (apt-get install etcd-server) or ETCD_BIN set to it.',
    );
  }
  return /etcd Version: (\S+)/.exec(result.stdout)?.[1] ?? 'unknown';
}

/**
 * Starts etcd with args, its output appended to logFile, without the caller's ETCD_* variables (etcd
 * reads them as flags). A launcher (e.g. `ip netns exec <ns>`) is put in front; it must exec etcd in
 * place, so that the child's pid is etcd's own and signals reach it.
 */
export function spawnEtcd(args: readonly string[], logFile: string, launcher: readonly string[] = [], binary = etcdBinary()): ChildProcess {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_')));
  const log = openSync(logFile, 'a');
  const [command = binary, ...before] = launcher.length > 0 ? [...launcher, binary] : [];
  const child = spawn(command, [...before, ...args], { env, stdio: ['ignore', log, log] });
  closeSync(log);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}
