import { readdirSync, readFileSync } from 'node:fs';
import { statFields } from './proc-stat.ts';

const STOP_TIMEOUT_MS = 5000;
const nap = new Int32Array(new SharedArrayBuffer(4));

/**
 * The run state of each thread of a process (`R`, `S`, `T`, ... from /proc/<pid>/task/<tid>/stat), or
 * null when the process is gone. A thread that exits while it is read is left out.
 */
export function threadStates(pid: number): string[] | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const states: string[] = [];
  for (const tid of tids) {
    try {
      states.push(statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))[0] ?? '');
    } catch {
      // The thread exited between the listing and the read.
    }
  }
  return states;
}

/**
 * Sends SIGSTOP and returns once every thread of the process is stopped (or it is gone). kill() only
 * queues the signal: the kernel wakes one thread to begin the group stop, and until it has run, the
 * others go on serving. On a loaded machine that took long enough for a member to answer a call made
 * right after the signal (a CI run of member-connections.test.ts). Synchronous, so that callers need no
 * await; it sleeps 1 ms between looks, and throws after 5 s.
 */
export function stopProcess(pid: number, name: string): void {
  process.kill(pid, 'SIGSTOP');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  for (;;) {
    const states = threadStates(pid);
    if (states === null || states.every((s) => s === 'T' || s === 't' || s === 'Z' || s === 'X')) return;
    if (Date.now() > deadline) throw new Error(`${name} (pid ${pid}) was not stopped ${STOP_TIMEOUT_MS} ms after SIGSTOP: thread states ${states.join('')}`);
    Atomics.wait(nap, 0, 0, 1);
  }
}
