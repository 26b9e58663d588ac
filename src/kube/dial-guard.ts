import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Why a connection was not made: an address in the deny list (ETCD_PROBE_DENY_CIDRS). */
export const DENIED_CODE = 'ERR_ETCD_PROBE_DENIED';

/**
 * The addresses a kubeconfig from a Secret may never reach (ETCD_PROBE_DENY_CIDRS), checked after DNS:
 * a host name that resolves into a denied range is refused too. `resolve` answers the address to
 * connect to (so that what was checked is what is dialled, not a second lookup), or throws an error
 * with code DENIED_CODE.
 */
export class DialGuard {
  readonly #list = new BlockList();
  readonly #empty: boolean;

  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const [address, prefix] = cidr.split('/') as [string, string];
      this.#list.addSubnet(address, Number(prefix), isIP(address) === 6 ? 'ipv6' : 'ipv4');
    }
    this.#empty = cidrs.length === 0;
  }

  /** Whether an IP address is in a denied range. */
  denies(address: string): boolean {
    // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is the IPv4 address it carries.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const checked = mapped ?? address;
    const family = isIP(checked);
    if (family === 0 || this.#empty) return false;
    return this.#list.check(checked, family === 6 ? 'ipv6' : 'ipv4');
  }

  /** A `lookup` for net/tls connect options: resolves through this guard, so that a denied address is never dialled. */
  readonly lookup = (hostname: string, options: { all?: boolean }, callback: (error: Error | null, address?: unknown, family?: number) => void): void => {
    this.resolve(hostname).then(
      (address) => {
        const family = isIP(address);
        if (options.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (error: Error) => callback(error),
    );
  };

  /** The address to connect to for a host (itself when it is an IP address), or a DENIED_CODE error. */
  async resolve(host: string): Promise<string> {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    const address = isIP(bare) !== 0 ? bare : this.#empty ? bare : (await lookup(bare, { verbatim: true })).address;
    if (this.denies(address)) {
      throw Object.assign(new Error(`${address === bare ? bare : `${bare} (${address})`} is in ETCD_PROBE_DENY_CIDRS: not connected to`), { code: DENIED_CODE });
    }
    return address;
  }
}
