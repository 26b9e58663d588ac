import { execFile, spawnSync } from 'node:child_process';

// Lab: runs the host's network tools (ip, nft, tc, bash) for the netns cluster. Async while a
// test runs, so that a fault is injected without stalling the service under test in the same process;
// sync only in exit hooks, where nothing async runs any more.

/** Runs a command, feeding it input; resolves with its stdout, rejects with its stderr. */
export function run(command: string, args: readonly string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { encoding: 'utf8', timeout: 10_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Runs a command and resolves with its exit code and stderr, whatever they are. */
export function tryRun(command: string, args: readonly string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: 'utf8', timeout: 10_000 }, (error, _stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stderr });
    });
  });
}

/** Runs a command to its end and returns its exit code (-1 when it could not start); for exit hooks. */
export function runSync(command: string, args: readonly string[]): number {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return result.status ?? -1;
}

/** Whether this machine lets the test build network namespaces (root, iproute2 and nftables present). */
export function netnsSupport(): { ok: true } | { ok: false; why: string } {
  if (process.getuid?.() !== 0) return { ok: false, why: 'the netns cluster needs root (network namespaces, veth pairs, nftables)' };
  for (const [tool, args] of [['ip', ['-V']], ['nft', ['--version']], ['tc', ['-V']]] as const) {
    if (spawnSync(tool, args, { stdio: 'ignore' }).status !== 0) return { ok: false, why: `the netns cluster needs '${tool}' (apt-get install iproute2 nftables)` };
  }
  return { ok: true };
}
