import { readFileSync } from 'node:fs';

// Checks on the running container, made from outside it: over HTTP, and through /proc of its process.

/** The last answer a URL gave. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** Polls url until it answers 200 and `accept(body)` holds; throws with the last answer after timeoutMs. */
export async function waitForOk(url: string, timeoutMs: number, accept: (body: string) => boolean = () => true): Promise<HttpAnswer> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      const body = await response.text();
      if (response.status === 200 && accept(body)) return { status: 200, body };
      last = `${response.status} ${body.slice(0, 500)}`;
    } catch (error) {
      last = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${url}: no acceptable 200 within ${timeoutMs} ms; last: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What the kernel says about a process: its real/effective uid and gid, its argv, and its root mount. */
export interface ProcessFacts {
  readonly uids: number[];
  readonly gids: number[];
  readonly argv: string[];
  /** The mount options of the process's `/` (its container's root filesystem). */
  readonly rootMountOptions: string[];
}

/** Reads /proc/<pid>/{status,cmdline,mountinfo} of a process seen from the host. */
export function processFacts(pid: number): ProcessFacts {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const ids = (key: string) => (new RegExp(`^${key}:\\s+(.*)$`, 'm').exec(status)?.[1] ?? '').split(/\s+/).map(Number);
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  // mountinfo: id parent major:minor root mount-point options ...; the last entry for / is the one in force.
  const root = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f[4] === '/')
    .at(-1);
  return { uids: ids('Uid'), gids: ids('Gid'), argv, rootMountOptions: (root?.[5] ?? '').split(',') };
}
