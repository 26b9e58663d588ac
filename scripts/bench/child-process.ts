import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { statFields } from '#lab/process/proc-stat.ts';

// Every child the bench starts, so that a dying bench still SIGKILLs them (the exit hook runs synchronously).
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Keeps the last bytes a child wrote, to show when it dies or misbehaves. */
const OUTPUT_KEPT = 16 * 1024;

/** A Node child process (the service or the bare server) with its recent output and /proc readings. */
export class NodeChild {
  readonly name: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #output = '';
  #exitCode: number | string | null = null;

  constructor(name: string, args: readonly string[], env: Record<string, string>) {
    this.name = name;
    // The parent's env minus ETCD_* so that no stray setting leaks into the service's config.
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_')));
    this.#child = spawn(process.execPath, args, { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(this.#child);
    const keep = (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
    };
    this.#child.stdout?.on('data', keep);
    this.#child.stderr?.on('data', keep);
    this.#exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        this.#exitCode = code ?? signal;
        live.delete(this.#child);
        resolve();
      });
    });
  }

  /** The child's process id. */
  get pid(): number {
    const pid = this.#child.pid;
    if (pid === undefined) throw new Error(`${this.name} did not start`);
    return pid;
  }

  /** Whether the child is still running. */
  get running(): boolean {
    return this.#exitCode === null;
  }

  /** What the child wrote lately (stdout and stderr). */
  get output(): string {
    return this.#output;
  }

  /** Resident set size in MB, from VmRSS in /proc/<pid>/status. */
  rssMb(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    if (kb === undefined) throw new Error(`no VmRSS for ${this.name} (pid ${this.pid})`);
    return Number(kb) / 1024;
  }

  /** CPU seconds (user + system) the child has used, from /proc/<pid>/stat (USER_HZ is 100 on Linux). */
  cpuSeconds(): number {
    // utime and stime are fields 14 and 15 of the line.
    const fields = statFields(readFileSync(`/proc/${this.pid}/stat`, 'utf8'));
    return (Number(fields[11]) + Number(fields[12])) / 100;
  }

  /** SIGTERM, then SIGKILL if the child has not exited within graceMs. Safe to call twice. */
  async stop(graceMs = 3000): Promise<void> {
    if (!this.running) return;
    this.#child.kill('SIGCONT');
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }
}
