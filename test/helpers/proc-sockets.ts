import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** One TCP socket of this process, as /proc/net/tcp lists it. */
export interface ProcSocket {
  readonly localPort: number;
  readonly remotePort: number;
  /** True for a listening socket (state 0A). */
  readonly listening: boolean;
}

function socketInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed while listing
    }
  }
  return inodes;
}

/** The paths of this process's listening unix sockets (flag __SO_ACCEPTCON in /proc/self/net/unix). */
export function unixListenersOfThisProcess(): string[] {
  const inodes = socketInodes();
  const paths: string[] = [];
  for (const line of readFileSync('/proc/self/net/unix', 'utf8').split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (!inodes.has(cols[6] ?? '') || (Number.parseInt(cols[3] ?? '0', 16) & 0x10000) === 0 || !cols[7]) continue;
    paths.push(cols[7]);
  }
  return paths;
}

/** This process's TCP sockets: the inodes of its fds joined with /proc/self/net/tcp and tcp6. */
export function socketsOfThisProcess(): ProcSocket[] {
  const inodes = socketInodes();
  const sockets: ProcSocket[] = [];
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (!inodes.has(cols[9] ?? '')) continue;
      const port = (address: string | undefined) => Number.parseInt(address?.split(':')[1] ?? '', 16);
      sockets.push({ localPort: port(cols[1]), remotePort: port(cols[2]), listening: cols[3] === '0A' });
    }
  }
  return sockets;
}

/** TCP connections (not listeners) of this process to the given remote ports. */
export function connectionsTo(ports: ReadonlySet<number>): number {
  return socketsOfThisProcess().filter((s) => !s.listening && ports.has(s.remotePort)).length;
}
