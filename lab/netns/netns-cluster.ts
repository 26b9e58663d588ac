import type { Etcd3 } from 'etcd3';
import type { PkiFiles } from '#lab/certs/pki.ts';
import { EtcdCluster, type ClusterMember, type ClusterOptions } from '#lab/etcd/cluster.ts';
import { LinkFaults, type CutAction, type Fault, type Flow } from './link-faults.ts';
import { CLIENT_PORT, NetnsNetwork, PEER_PORT } from './netns-network.ts';

// Lab: an EtcdCluster whose members each run in their own network namespace on their own
// address (with a serving certificate for it), routed through a hub namespace where the test cuts,
// degrades and heals links. etcd-probe and the test run in the root namespace ('probe'). Needs root.

/** A member by index, or the test process (where etcd-probe runs). */
export type Endpoint = number | 'probe';

/** How a cut behaves. */
export interface CutOptions {
  /** drop (default): a black hole, callers time out; reject: refused at once with a TCP reset. */
  readonly action?: CutAction;
  /** Cut only the a-to-b direction; default both. */
  readonly oneWay?: boolean;
}

/** A cluster on its own network, with fault injection. */
export class NetnsCluster {
  readonly etcd: EtcdCluster;
  readonly network: NetnsNetwork;
  readonly faults: LinkFaults;

  private constructor(etcd: EtcdCluster, network: NetnsNetwork, faults: LinkFaults) {
    this.etcd = etcd;
    this.network = network;
    this.faults = faults;
  }

  /** Builds the network, starts the members in it, and waits until every member is healthy. */
  static async start(options: Omit<ClusterOptions, 'placement'> = {}): Promise<NetnsCluster> {
    const size = options.size ?? 3;
    const network = await NetnsNetwork.create(Array.from({ length: size }, (_, i) => `m${i + 1}`));
    try {
      const faults = await LinkFaults.install(network);
      const etcd = await EtcdCluster.start({ dir: network.dir, ...options, size, placement: network.placement });
      return new NetnsCluster(etcd, network, faults);
    } catch (error) {
      await network.destroy();
      throw error;
    }
  }

  get members(): ClusterMember[] {
    return this.etcd.members;
  }

  /** The client URLs, as ETCD_PROBE_ENDPOINTS wants them. */
  get endpoints(): string {
    return this.etcd.endpoints;
  }

  get pki(): PkiFiles | null {
    return this.etcd.pki;
  }

  /** The address of a member, or the probe's. */
  ip(endpoint: Endpoint): string {
    return endpoint === 'probe' ? this.network.probeIp : this.network.node(this.etcd.member(endpoint).name).ip;
  }

  /** A test-side client for one member; it dials from the probe's address, so probe cuts cut it too. */
  client(index: number): Etcd3 {
    return this.etcd.client(index);
  }

  /** SIGKILLs a member. */
  kill(index: number): Promise<void> {
    return this.etcd.kill(index);
  }

  /** SIGSTOPs a member (hung). */
  pause(index: number): void {
    this.etcd.pause(index);
  }

  /** SIGCONTs a paused member. */
  resume(index: number): void {
    this.etcd.resume(index);
  }

  /** Starts a killed member again and waits until it is healthy. */
  restart(index: number): Promise<void> {
    return this.etcd.restart(index);
  }

  /** The leader's index, from etcd_server_is_leader (the metrics port is never cut). */
  leaderIndex(): Promise<number> {
    return this.etcd.leaderIndex();
  }

  /** The indexes of the members that do not lead. */
  followerIndexes(): Promise<number[]> {
    return this.etcd.followerIndexes();
  }

  /** One number from a member's /metrics (the metrics port is never cut), summing every series the pattern matches. */
  metric(index: number, pattern: RegExp): Promise<number> {
    return this.etcd.metric(index, pattern);
  }

  /** Waits until the given members (all by default) say healthy on their /health. */
  waitHealthy(indexes?: number[], timeoutMs?: number): Promise<void> {
    return this.etcd.waitHealthy(indexes, timeoutMs);
  }

  /** Cuts the link between a and b (both ways unless oneWay: then only packets from a to b). */
  cut(a: Endpoint, b: Endpoint, options: CutOptions = {}): Promise<Fault> {
    return this.cutMany([[a, b]], options, `${a}-${b}`);
  }

  /** Cuts several links in one transaction. */
  cutMany(pairs: readonly (readonly [Endpoint, Endpoint])[], options: CutOptions = {}, what = 'links'): Promise<Fault> {
    const flows: Flow[] = pairs.flatMap(([a, b]) => {
      const forth = { from: this.ip(a), to: this.ip(b) };
      return options.oneWay ? [forth] : [forth, { from: forth.to, to: forth.from }];
    });
    return this.faults.block(flows, options.action ?? 'drop', what);
  }

  /** Cuts a member from every other member (its peers); the probe still reaches it. */
  isolateFromPeers(index: number, options: CutOptions = {}): Promise<Fault> {
    const others = this.members.map((_, i) => i).filter((i) => i !== index);
    return this.cutMany(others.map((o) => [index, o] as const), options, `m${index + 1} from peers`);
  }

  /** Cuts every member from every other member; the probe still reaches each. */
  partitionAll(options: CutOptions = {}): Promise<Fault> {
    const pairs = this.members.flatMap((_, a) => this.members.map((_, b) => [a, b] as const).filter(([, b]) => b > a));
    return this.cutMany(pairs, options, 'full partition');
  }

  /** Drops `percent` of every packet to and from a member (its peers and the probe alike). */
  loss(index: number, percent: number): Promise<Fault> {
    const ip = this.ip(index);
    const others = [...this.members.map((_, i) => i).filter((i) => i !== index), 'probe' as const].map((e) => this.ip(e));
    const flows = others.flatMap((o) => [
      { from: ip, to: o },
      { from: o, to: ip },
    ]);
    return this.faults.loss(flows, percent, `m${index + 1}`);
  }

  /** Limits a member's link to kbit kbit/s each way. */
  throttle(index: number, kbit: number): Promise<Fault> {
    return this.faults.throttle(this.network.node(this.etcd.member(index).name), kbit);
  }

  /** Heals every fault in place. */
  healAll(): Promise<void> {
    return this.faults.healAll();
  }

  /** Tries a TCP connection from one endpoint to another's client or peer port (or any port). */
  connect(from: Endpoint, to: Endpoint, port: 'client' | 'peer' | number = 'client', timeoutMs = 1000): Promise<'ok' | 'refused' | 'timeout'> {
    const number = port === 'client' ? CLIENT_PORT : port === 'peer' ? PEER_PORT : port;
    const source = from === 'probe' ? 'probe' : this.etcd.member(from).name;
    return this.network.connect(source, this.ip(to), number, timeoutMs);
  }

  /** Stops every member, then removes the namespaces, links and rules. Safe to call twice. */
  async stop(): Promise<void> {
    try {
      await this.etcd.stop();
    } finally {
      await this.network.destroy();
    }
  }
}
