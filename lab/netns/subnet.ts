import { run } from './host-command.ts';

// Lab: picks a /24 for one netns network that no route or address of the host overlaps, and
// claims it atomically: adding the route fails with "File exists" when another instance got there first.

/** The range the netns networks take their /24s from. */
export const NETNS_RANGE = '10.213.0.0/16';

function toNumber(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function toIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

function overlaps(a: string, b: string): boolean {
  const [aIp = '', aLen = '32'] = a.split('/');
  const [bIp = '', bLen = '32'] = b.split('/');
  const bits = Math.min(Number(aLen), Number(bLen));
  const span = 2 ** (32 - bits);
  return Math.floor(toNumber(aIp) / span) === Math.floor(toNumber(bIp) / span);
}

/** The address of host number `host` in a /24 given as a.b.c.0/24. */
export function hostAddress(subnet: string, host: number): string {
  return toIp(toNumber(subnet.split('/')[0] ?? '') + host);
}

async function inUse(): Promise<string[]> {
  const routes = JSON.parse(await run('ip', ['-j', '-4', 'route', 'show', 'table', 'all'])) as { dst?: string }[];
  const addresses = JSON.parse(await run('ip', ['-j', '-4', 'addr', 'show'])) as { addr_info?: { local?: string }[] }[];
  return [
    ...routes.map((r) => r.dst ?? 'default').filter((d) => d !== 'default' && /^\d/.test(d)),
    ...addresses.flatMap((a) => (a.addr_info ?? []).flatMap((i) => (i.local ? [i.local] : []))),
  ];
}

/**
 * Claims a free /24 of NETNS_RANGE for a network reached through `link` (root-namespace side), starting
 * the search at `seed`: routes it via the subnet's .1 on that link. Returns "a.b.c.0/24".
 */
export async function claimSubnet(link: string, seed: number): Promise<string> {
  const [base = ''] = NETNS_RANGE.split('/');
  const used = await inUse();
  for (let i = 0; i < 256; i++) {
    const subnet = `${toIp(toNumber(base) + ((seed + i) % 256) * 256)}/24`;
    if (used.some((u) => overlaps(u, subnet))) continue;
    try {
      await run('ip', ['route', 'add', subnet, 'via', hostAddress(subnet, 1), 'dev', link, 'onlink']);
      return subnet;
    } catch (error) {
      if (!/File exists/.test((error as Error).message)) throw error;
    }
  }
  throw new Error(`no free /24 left in ${NETNS_RANGE} for a netns network`);
}
