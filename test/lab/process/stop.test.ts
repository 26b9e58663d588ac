import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { stopProcess, threadStates } from '#lab/process/stop.ts';

// The fixture behind EtcdCluster.pause: a SIGSTOPped member must be stopped, every thread of it, by the
// time pause() returns, or a call made right after it may still be answered.

let child: ChildProcess | null = null;

function busyChild(): ChildProcess {
  // Node runs several threads (the main one, libuv's and V8's workers); the main one keeps computing, so
  // at least one thread is running, not sleeping, when the signal comes.
  return spawn(process.execPath, ['-e', 'let x = 0; for (;;) x = (x + 1) % 1e9;'], { stdio: 'ignore' });
}

afterEach(() => {
  if (child?.pid !== undefined) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  child = null;
});

describe('stopProcess', () => {
  it('returns only once every thread of the process is stopped', async () => {
    child = busyChild();
    const pid = child.pid as number;
    // Node starts its worker threads after the main one: wait until there are several, one of them running.
    await expect.poll(() => { const s = threadStates(pid) ?? []; return s.length > 1 && s.includes('R'); }, { timeout: 5000, interval: 20 }).toBe(true);
    const before = threadStates(pid) ?? [];

    stopProcess(pid, 'busy child');

    const after = threadStates(pid) ?? [];
    // None of the threads seen before is missed; Node may have started another in between (V8 starts some
    // of its workers lazily), and once the process is stopped none can start.
    expect(after.length).toBeGreaterThanOrEqual(before.length);
    expect(new Set(after)).toEqual(new Set(['T']));
    // And it stays stopped: a second look a little later sees the same.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(new Set(threadStates(pid) ?? [])).toEqual(new Set(['T']));

    child.kill('SIGCONT');
    await expect.poll(() => threadStates(pid)?.includes('T') ?? true, { timeout: 5000, interval: 20 }).toBe(false);
  });

  it('reads a process that is gone as null', async () => {
    child = busyChild();
    const pid = child.pid as number;
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await expect.poll(() => threadStates(pid), { timeout: 5000, interval: 20 }).toBe(null);
  });
});
