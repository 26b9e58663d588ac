import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemberPlacement } from '#lab/etcd/member-placement.ts';
import { netnsSupport, run, runSync, tryRun } from './host-command.ts';
import { claimSubnet, hostAddress } from './subnet.ts';

// Lab: one network namespace per node, each joined by a veth pair to a hub namespace that
// forwards between them; the test process (root namespace) reaches the hub through its own veth. Node k
// (from 1) is hub-side .4k+1 / node-side .4k+2 of a /24 claimed for this instance; the probe is .2, the
// hub's probe side .1. Names carry the pid, so that concurrent runs never collide; destroy() removes it
// all (the temp folder `dir` too), and so does an exit hook if the test process ends first.

/** etcd's ports; every node has its own address, so every member uses the standard ones. */
export const CLIENT_PORT = 2379;
/** See CLIENT_PORT. */
export const PEER_PORT = 2380;
/** The metrics listener; the hub never cuts the probe's traffic to it (see link-faults.ts). */
export const METRICS_PORT = 2381;

const NAME_PREFIX = 'etcd-probe';
let instances = 0;
const live = new Set<NetnsNetwork>();

process.once('exit', () => {
  for (const network of live) network.destroySync();
});
// A signal ends the process without 'exit' hooks; turn it into an exit so that they (and binary.ts's
// hook, which kills the members) run, unless someone else handles that signal.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    if (live.size > 0 && process.listenerCount(signal) === 0) process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const)[signal]);
  });
}

/** One node: its namespace, its address, and the hub's side of its link. */
export interface NetnsNode {
  readonly name: string;
  readonly netns: string;
  readonly ip: string;
  /** The hub's address on this node's link (the node's gateway). */
  readonly hubIp: string;
  /** The name of the hub's end of this node's veth pair. */
  readonly hubLink: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Namespaces and folders left by a test process that died without its exit hook (SIGKILL): the etcd
// processes in them were started by this fixture; they, the namespaces and the folders go.
async function sweepStale(): Promise<void> {
  for (const entry of readdirSync(tmpdir())) {
    const pid = new RegExp(`^${NAME_PREFIX}-(\\d+)-\\d+-`).exec(entry)?.[1];
    if (pid && !alive(Number(pid))) rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
  const listing = await run('ip', ['netns', 'list']);
  for (const name of listing.split('\n').map((l) => l.split(' ')[0] ?? '')) {
    const pid = new RegExp(`^${NAME_PREFIX}-(\\d+)-\\d+-`).exec(name)?.[1];
    if (!pid || alive(Number(pid))) continue;
    const pids = await run('ip', ['netns', 'pids', name]).catch(() => '');
    for (const p of pids.split('\n').filter(Boolean)) {
      try {
        process.kill(Number(p), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await run('ip', ['netns', 'del', name]).catch(() => undefined);
  }
}

/** A hub and one namespace per node, with routes between all of them and the test process. */
export class NetnsNetwork {
  readonly id: string;
  readonly hub: string;
  /** The veth end in the root namespace (the probe's side). */
  readonly rootLink: string;
  readonly subnet: string;
  readonly probeIp: string;
  readonly hubIp: string;
  readonly nodes: readonly NetnsNode[];
  /** A temp folder for the cluster's files, removed with the network. */
  readonly dir: string;
  #destroyed = false;

  private constructor(id: string, rootLink: string, subnet: string, names: readonly string[]) {
    this.id = id;
    this.hub = `${id}-hub`;
    this.rootLink = rootLink;
    this.subnet = subnet;
    this.probeIp = hostAddress(subnet, 2);
    this.hubIp = hostAddress(subnet, 1);
    this.dir = mkdtempSync(join(tmpdir(), `${id}-`));
    this.nodes = names.map((name, i) => ({
      name,
      netns: `${id}-${name}`,
      ip: hostAddress(subnet, 4 * (i + 1) + 2),
      hubIp: hostAddress(subnet, 4 * (i + 1) + 1),
      hubLink: name,
    }));
  }

  /** Builds the namespaces and links for the named nodes (at most 63). */
  static async create(names: readonly string[]): Promise<NetnsNetwork> {
    if (names.length > 63) throw new Error('a netns network holds at most 63 nodes');
    const support = netnsSupport();
    if (!support.ok) throw new Error(support.why);
    await sweepStale();
    const n = ++instances;
    const id = `${NAME_PREFIX}-${process.pid}-${n}`;
    // Interface names are at most 15 bytes: "ep" + pid (at most 7 digits) + "n" + instance.
    const rootLink = `ep${process.pid}n${n}`;
    const hub = `${id}-hub`;
    await run('ip', ['netns', 'add', hub]);
    let network: NetnsNetwork | null = null;
    try {
      await run('ip', ['link', 'add', 'name', rootLink, 'type', 'veth', 'peer', 'name', 'probe', 'netns', hub]);
      await run('ip', ['link', 'set', 'dev', rootLink, 'up']);
      const subnet = await claimSubnet(rootLink, process.pid * 7 + n * 31);
      network = new NetnsNetwork(id, rootLink, subnet, names);
      live.add(network);
      await network.#wire();
      return network;
    } catch (error) {
      if (network) await network.destroy();
      else {
        runSync('ip', ['netns', 'del', hub]);
        runSync('ip', ['link', 'del', rootLink]);
      }
      throw error;
    }
  }

  async #wire(): Promise<void> {
    const { hub } = this;
    await run('ip', ['addr', 'add', this.probeIp, 'peer', this.hubIp, 'dev', this.rootLink]);
    await run('ip', ['netns', 'exec', hub, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    await run('ip', ['-n', hub, 'link', 'set', 'lo', 'up']);
    await run('ip', ['-n', hub, 'addr', 'add', this.hubIp, 'peer', this.probeIp, 'dev', 'probe']);
    await run('ip', ['-n', hub, 'link', 'set', 'probe', 'up']);
    for (const node of this.nodes) {
      await run('ip', ['netns', 'add', node.netns]);
      await run('ip', ['-n', node.netns, 'link', 'set', 'lo', 'up']);
      await run('ip', ['-n', hub, 'link', 'add', 'name', node.hubLink, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', node.netns]);
      await run('ip', ['-n', hub, 'addr', 'add', node.hubIp, 'peer', node.ip, 'dev', node.hubLink]);
      await run('ip', ['-n', node.netns, 'addr', 'add', node.ip, 'peer', node.hubIp, 'dev', 'eth0']);
      await run('ip', ['-n', hub, 'link', 'set', 'dev', node.hubLink, 'up']);
      await run('ip', ['-n', node.netns, 'link', 'set', 'eth0', 'up']);
      await run('ip', ['-n', node.netns, 'route', 'add', 'default', 'via', node.hubIp]);
    }
  }

  /** The node of that name. */
  node(name: string): NetnsNode {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node ${name} in netns network ${this.id} (it has ${this.nodes.map((n) => n.name).join(', ')})`);
    return node;
  }

  /** Puts EtcdCluster members on the nodes of the same name, each run inside its namespace. */
  get placement(): MemberPlacement {
    return {
      ownCertificates: true,
      addresses: async (names) => names.map((name) => ({ host: this.node(name).ip, client: CLIENT_PORT, peer: PEER_PORT, metrics: METRICS_PORT })),
      launcher: (name) => ['ip', 'netns', 'exec', this.node(name).netns],
    };
  }

  /**
   * Tries a TCP connection from a node (or 'probe', the test process's namespace) to ip:port: 'ok',
   * 'refused' (a reset came back) or 'timeout' (nothing came back within timeoutMs).
   */
  async connect(from: string, ip: string, port: number, timeoutMs = 1000): Promise<'ok' | 'refused' | 'timeout'> {
    const prefix = from === 'probe' ? [] : ['ip', 'netns', 'exec', this.node(from).netns];
    const args = [...prefix, 'timeout', (timeoutMs / 1000).toFixed(3), 'bash', '-c', `: </dev/tcp/${ip}/${port}`];
    const { code, stderr } = await tryRun(args[0] as string, args.slice(1));
    if (code === 0) return 'ok';
    // timeout(1) exits 124 when the time ran out; bash says why a connect failed.
    if (code === 124) return 'timeout';
    if (/refused/i.test(stderr)) return 'refused';
    throw new Error(`connect from ${from} to ${ip}:${port}: exit ${code}: ${stderr.trim()}`);
  }

  /** Removes every namespace and link (the processes inside must be stopped first). Safe to call twice. */
  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    live.delete(this);
    for (const ns of [this.hub, ...this.nodes.map((n) => n.netns)]) await run('ip', ['netns', 'del', ns]).catch(() => undefined);
    // The root end goes with the hub's; this only matters if the hub was never made.
    await run('ip', ['link', 'del', this.rootLink]).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** destroy() for exit hooks. */
  destroySync(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    live.delete(this);
    for (const ns of [this.hub, ...this.nodes.map((n) => n.netns)]) runSync('ip', ['netns', 'del', ns]);
    runSync('ip', ['link', 'del', this.rootLink]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
