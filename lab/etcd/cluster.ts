import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { writeTestPki, type PkiFiles } from '#lab/certs/pki.ts';
import { etcdVersion } from './binary.ts';
import { grpcStartedPattern, newMember, readMetric, type ClusterFlags, type ClusterMember } from './member.ts';
import { endMember, pauseMember, resumeMember, spawnMember } from './member-process.ts';
import { loopbackPlacement, type MemberAddress, type MemberPlacement } from './member-placement.ts';

// Lab: a real etcd cluster (the `etcd` binary from PATH, or ETCD_BIN) on free loopback ports
// (or wherever a MemberPlacement puts it), in a temp folder, with TLS made by the test. Every process it
// starts is stopped by stop(), and by binary.ts's exit hook if a test run dies first.

export { etcdVersion } from './binary.ts';
export type { ClusterMember } from './member.ts';

/** How the cluster is started. */
export interface ClusterOptions {
  readonly size?: number;
  /** Client URLs over TLS with client-certificate auth (default true). */
  readonly tls?: boolean;
  /** etcd's --quota-backend-bytes, to raise NOSPACE for real. */
  readonly quotaBackendBytes?: number;
  /** Where to put the cluster; a new temp folder by default. */
  readonly dir?: string;
  /** Where members listen and how they are launched; free loopback ports by default. */
  readonly placement?: MemberPlacement;
  /** More etcd flags for every member, e.g. --pre-vote=true. */
  readonly extraArgs?: readonly string[];
  /** The etcd binary; ETCD_BIN (or etcd on PATH) by default. */
  readonly binary?: string;
  /** More IP SANs on every member's own serving certificate: a load balancer's address in front of them. */
  readonly sharedIps?: readonly string[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A running test cluster. */
export class EtcdCluster {
  readonly dir: string;
  readonly members: ClusterMember[];
  readonly pki: PkiFiles | null;
  readonly #flags: ClusterFlags;
  readonly #scheme: string;
  readonly #placement: MemberPlacement;
  readonly #binary: string | undefined;

  private constructor(dir: string, members: ClusterMember[], flags: ClusterFlags, scheme: string, placement: MemberPlacement, binary?: string) {
    this.dir = dir;
    this.members = members;
    this.pki = flags.pki;
    this.#flags = flags;
    this.#scheme = scheme;
    this.#placement = placement;
    this.#binary = binary;
  }

  /** A test-side etcd3 client for one member (the test may write; the service never does). Close it. */
  client(index: number): Etcd3 {
    const { pki } = this;
    return new Etcd3({
      hosts: this.member(index).clientUrl,
      // etcd3's default retries and circuit breaker would turn "try again" answers into "circuit open".
      faultHandling: { host: () => noop, global: noop },
      ...(pki
        ? { credentials: { rootCertificate: readFileSync(pki.caFile), certChain: readFileSync(pki.clientCertFile), privateKey: readFileSync(pki.clientKeyFile) } }
        : {}),
    });
  }

  /** Adds a learner (MemberAdd with isLearner through member 0), starts it, and waits until it is healthy. */
  async addLearner(): Promise<ClusterMember> {
    const name = `m${this.members.length + 1}`;
    const [address] = (await this.#placement.addresses([name])) as [MemberAddress];
    const peerUrl = `http://${address.host}:${address.peer}`;
    const client = this.client(0);
    try {
      // etcd refuses reconfiguration ("unhealthy cluster") until every member has been connected for a while.
      for (let attempt = 0; ; attempt++) {
        try {
          await client.cluster.memberAdd({ peerURLs: [peerUrl], isLearner: true });
          break;
        } catch (error) {
          if (attempt >= 100 || !/unhealthy cluster/.test((error as Error).message)) throw error;
          await sleep(200);
        }
      }
    } finally {
      client.close();
    }
    const peers = [...this.members.map((m) => `${m.name}=${m.peerUrl}`), `${name}=${peerUrl}`].join(',');
    const learner = newMember(this.dir, name, this.#scheme, address, peers, 'existing');
    this.members.push(learner);
    this.#spawn(learner);
    await this.waitHealthy([this.members.length - 1]);
    return learner;
  }

  /** Starts a cluster and waits until every member reports healthy. */
  static async start(options: ClusterOptions = {}): Promise<EtcdCluster> {
    etcdVersion(options.binary);
    const size = options.size ?? 3;
    const tls = options.tls ?? true;
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'etcd-probe-cluster-'));
    mkdirSync(dir, { recursive: true });
    const placement = options.placement ?? loopbackPlacement;
    const names = Array.from({ length: size }, (_, i) => `m${i + 1}`);
    const addresses = await placement.addresses(names);
    const ownIps = placement.ownCertificates ? Object.fromEntries(names.map((n, i) => [n, addresses[i]?.host as string])) : {};
    const pki = tls ? await writeTestPki(dir, ownIps, options.sharedIps ?? []) : null;
    const scheme = tls ? 'https' : 'http';
    const peers = addresses.map((a, i) => `${names[i]}=http://${a.host}:${a.peer}`).join(',');
    const members: ClusterMember[] = names.map((name, i) => newMember(dir, name, scheme, addresses[i] as MemberAddress, peers, 'new'));
    const token = `etcd-probe-test-${process.pid}-${addresses[0]?.host}-${addresses[0]?.client}`;
    const flags: ClusterFlags = {
      token,
      pki,
      ...(options.quotaBackendBytes ? { quotaBackendBytes: options.quotaBackendBytes } : {}),
      ...(options.extraArgs ? { extraArgs: options.extraArgs } : {}),
    };
    const cluster = new EtcdCluster(dir, members, flags, scheme, placement, options.binary);
    for (const m of members) cluster.#spawn(m);
    await cluster.waitHealthy();
    return cluster;
  }

  /** The client URLs, comma-separated, as ETCD_PROBE_ENDPOINTS wants them. */
  get endpoints(): string {
    return this.members.map((m) => m.clientUrl).join(',');
  }

  #spawn(m: ClusterMember): void {
    spawnMember(m, this.#flags, this.#placement.launcher?.(m.name) ?? [], this.#binary);
  }

  /** Whether a member's own /health (on its metrics listener) says true. */
  async memberHealthy(index: number): Promise<boolean> {
    try {
      const response = await fetch(`${this.member(index).metricsUrl}/health`, { signal: AbortSignal.timeout(1000) });
      return ((await response.json()) as { health?: string }).health === 'true';
    } catch {
      return false;
    }
  }

  /** Waits until the given members (all by default) report healthy. */
  async waitHealthy(indexes: number[] = this.members.map((_, i) => i), timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const states = await Promise.all(indexes.map((i) => this.memberHealthy(i)));
      if (states.every(Boolean)) return;
      await sleep(100);
    }
    throw new Error(`etcd members ${indexes.map((i) => this.member(i).name).join(', ')} not healthy within ${timeoutMs}ms; logs in ${this.dir}`);
  }

  member(index: number): ClusterMember {
    const m = this.members[index];
    if (!m) throw new Error(`no member ${index}`);
    return m;
  }

  /** The index of the member that currently leads (etcd_server_is_leader on its metrics). */
  async leaderIndex(): Promise<number> {
    for (let attempt = 0; attempt < 100; attempt++) {
      for (const [i, m] of this.members.entries()) {
        if (!m.process || m.paused) continue;
        const value = await this.metric(i, /^etcd_server_is_leader (\d+)/m).catch(() => 0);
        if (value === 1) return i;
      }
      await sleep(100);
    }
    throw new Error('no leader found');
  }

  /** Moves the leadership, as `etcdctl move-leader` does, from the leader to the first other member; returns their names. */
  async moveLeader(): Promise<{ from: string; to: string }> {
    const index = await this.leaderIndex();
    const from = this.member(index);
    const to = this.members.find((m) => m.name !== from.name) as ClusterMember;
    const client = this.client(index);
    try {
      const target = (await client.cluster.memberList({})).members.find((m) => m.name === to.name);
      if (!target) throw new Error(`${to.name} is not in the member list`);
      await client.maintenance.moveLeader({ targetID: target.ID });
    } finally {
      client.close();
    }
    return { from: from.name, to: to.name };
  }

  /** Indexes of the members that do not lead, leader first excluded. */
  async followerIndexes(): Promise<number[]> {
    const leader = await this.leaderIndex();
    return this.members.map((_, i) => i).filter((i) => i !== leader);
  }

  /** Reads one number from a member's /metrics, summing every series the pattern matches. */
  metric(index: number, pattern: RegExp): Promise<number> {
    return readMetric(this.member(index).metricsUrl, pattern);
  }

  /** How many unary calls of a gRPC method a member has started (grpc_server_started_total). */
  grpcStarted(index: number, method: string): Promise<number> {
    return this.metric(index, grpcStartedPattern(method));
  }

  /** SIGKILLs a member and waits for it to be gone. */
  async kill(index: number): Promise<void> {
    return endMember(this.member(index), 'SIGKILL');
  }

  /** SIGTERMs a member and waits for it to exit: etcd commits its backend (bbolt) on the way out. */
  async stopGracefully(index: number): Promise<void> {
    return endMember(this.member(index), 'SIGTERM');
  }

  /** SIGSTOPs a member and waits until all its threads are stopped: its sockets stay open but it answers nothing (a hung member). */
  pause(index: number): void {
    pauseMember(this.member(index));
  }

  /** SIGCONTs a paused member. */
  resume(index: number): void {
    resumeMember(this.member(index));
  }

  /** Starts a killed member again on its data dir and waits until it is healthy. */
  async restart(index: number): Promise<void> {
    const m = this.member(index);
    if (m.process) await this.kill(index);
    this.#spawn(m);
    await this.waitHealthy([index]);
  }

  /** Stops every member and removes the folder. Safe to call twice. */
  async stop(): Promise<void> {
    await Promise.all(this.members.map((_, i) => this.kill(i)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
