import { spawn, type ChildProcess } from 'node:child_process';
import type { EtcdCluster } from '#lab/etcd/cluster.ts';

// The demo heals NOSPACE with etcdctl, as an operator would (etcd-probe itself never writes), and prints
// each command exactly as it ran it, so that it can be copied.

/** What one etcdctl run printed. */
export interface EtcdctlRun {
  readonly command: string;
  readonly code: number | null;
  readonly output: string;
}

const running = new Set<ChildProcess>();

/** Kills any etcdctl still running (the demo is stopping). */
export function killEtcdctl(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** The connection flags for every member of the cluster, with its client certificate. */
export function connectionFlags(cluster: EtcdCluster): string[] {
  const pki = cluster.pki;
  const tls = pki ? [`--cacert=${pki.caFile}`, `--cert=${pki.clientCertFile}`, `--key=${pki.clientKeyFile}`] : [];
  return [`--endpoints=${cluster.endpoints}`, ...tls];
}

/** Runs `etcdctl <connection flags> <args>` (API v3), after printing the command line. */
export function etcdctl(cluster: EtcdCluster, args: readonly string[], print: (line: string) => void): Promise<EtcdctlRun> {
  const argv = [...connectionFlags(cluster), ...args];
  const command = `etcdctl ${argv.join(' ')}`;
  print(`  $ ${command}`);
  // Without the caller's ETCDCTL_* variables: etcdctl would read them as flags.
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCDCTL_'))), ETCDCTL_API: '3' };
  const child = spawn('etcdctl', argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => {
    child.once('error', (error) => {
      running.delete(child);
      resolve({ command, code: null, output: `${error.message} (etcdctl comes with Debian's etcd-client package)` });
    });
    child.once('close', (code) => {
      running.delete(child);
      resolve({ command, code, output: output.trim() });
    });
  });
}
