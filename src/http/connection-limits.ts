import { isIPv6 } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * The key a client's connections are counted under: its IPv4 address, or the /64 of an IPv6 address
 * (one host usually holds a whole /64, so counting single IPv6 addresses would cap nothing).
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '').toLowerCase()).join(':')}::/64`;
}

/**
 * Closes a new connection at once when its client already holds `max` open ones, beside the global
 * `maxConnections`: one client (a scanner, a stuck load balancer, someone holding half-open TLS
 * sockets) cannot take every slot and starve the kubelet's probes. Runs before the TLS or HTTP layer
 * reads a byte of the socket.
 */
export function limitConnectionsPerClient(server: Server, max: number, dropped: () => void): void {
  const open = new Map<string, number>();
  server.prependListener('connection', (socket: Socket) => {
    const key = clientKey(socket.remoteAddress);
    const held = open.get(key) ?? 0;
    if (held >= max) {
      dropped();
      socket.destroy();
      return;
    }
    open.set(key, held + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}
