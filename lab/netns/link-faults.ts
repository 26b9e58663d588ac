import { run } from './host-command.ts';
import { METRICS_PORT, type NetnsNetwork, type NetnsNode } from './netns-network.ts';

// Lab: network faults between the nodes of a NetnsNetwork, made with nftables rules in the hub's
// forward chain (cuts, packet loss) and htb qdiscs (a slow link). One nft transaction per fault, so a
// fault starts and heals at once. The probe's traffic to a member's metrics port is accepted before any
// fault rule: the test reads leadership and /health there, and etcd-probe never uses that port.

/** drop: packets vanish (the sender times out); reject: the hub answers a TCP reset (refused at once). */
export type CutAction = 'drop' | 'reject';

/** Packets from one address to another. */
export interface Flow {
  readonly from: string;
  readonly to: string;
}

/** A fault in place; heal() removes it (once; later calls do nothing). */
export interface Fault {
  readonly label: string;
  heal(): Promise<void>;
}

const TABLE = 'inet faults';

function ruleFor({ from, to }: Flow, verdict: string, label: string): string {
  return `add rule ${TABLE} cuts ip saddr ${from} ip daddr ${to} ${verdict} comment "${label}"`;
}

/** Installs and removes faults in one network's hub. */
export class LinkFaults {
  readonly #network: NetnsNetwork;
  readonly #healers = new Map<string, () => Promise<void>>();
  #count = 0;

  private constructor(network: NetnsNetwork) {
    this.#network = network;
  }

  /** Creates the hub's nft table (forward chain, observer exemption, and the chain that holds faults). */
  static async install(network: NetnsNetwork): Promise<LinkFaults> {
    const probe = network.probeIp;
    await LinkFaults.#nft(
      network.hub,
      [
        `add table ${TABLE}`,
        `add chain ${TABLE} cuts`,
        `add chain ${TABLE} forward { type filter hook forward priority 0; policy accept; }`,
        `add rule ${TABLE} forward ip saddr ${probe} tcp dport ${METRICS_PORT} accept`,
        `add rule ${TABLE} forward ip daddr ${probe} tcp sport ${METRICS_PORT} accept`,
        `add rule ${TABLE} forward jump cuts`,
      ].join('\n'),
    );
    return new LinkFaults(network);
  }

  static async #nft(netns: string, script: string): Promise<string> {
    return run('ip', ['netns', 'exec', netns, 'nft', '--echo', '--handle', '-f', '-'], `${script}\n`);
  }

  async #rules(lines: readonly string[], label: string): Promise<Fault> {
    const echoed = await LinkFaults.#nft(this.#network.hub, lines.join('\n'));
    const handles = [...echoed.matchAll(/# handle (\d+)$/gm)].map((m) => m[1]);
    return this.#track(label, async () => {
      const script = handles.map((h) => `delete rule ${TABLE} cuts handle ${h}`).join('\n');
      if (script) await LinkFaults.#nft(this.#network.hub, script);
    });
  }

  #track(label: string, heal: () => Promise<void>): Fault {
    this.#healers.set(label, heal);
    return {
      label,
      heal: async () => {
        const healer = this.#healers.get(label);
        this.#healers.delete(label);
        await healer?.();
      },
    };
  }

  #label(what: string): string {
    return `f${++this.#count} ${what}`;
  }

  /** Cuts the flows: every packet of them dropped, or refused with a TCP reset. */
  block(flows: readonly Flow[], action: CutAction, what = 'cut'): Promise<Fault> {
    const label = this.#label(`${action} ${what}`);
    const verdicts = action === 'drop' ? ['drop'] : ['meta l4proto tcp reject with tcp reset', 'reject'];
    return this.#rules(
      flows.flatMap((f) => verdicts.map((v) => ruleFor(f, v, label))),
      label,
    );
  }

  /** Drops a random `percent` of the flows' packets, each packet on its own. */
  loss(flows: readonly Flow[], percent: number, what = 'loss'): Promise<Fault> {
    if (!(percent > 0 && percent <= 100)) throw new Error(`loss percent must be in (0, 100], not ${percent}`);
    const label = this.#label(`${percent}% ${what}`);
    return this.#rules(
      flows.map((f) => ruleFor(f, `numgen random mod 100 < ${percent} drop`, label)),
      label,
    );
  }

  /**
   * Limits a node's link to `kbit` kbit/s each way (htb; the probe's metrics reads stay fast): queueing
   * delay under load, as on a congested link. (netem, for a fixed delay, is not built into every kernel.)
   */
  async throttle(node: NetnsNode, kbit: number): Promise<Fault> {
    const label = this.#label(`${kbit}kbit ${node.name}`);
    const links = [
      { netns: this.#network.hub, dev: node.hubLink },
      { netns: node.netns, dev: 'eth0' },
    ];
    for (const { netns, dev } of links) {
      await run('tc', ['-n', netns, 'qdisc', 'replace', 'dev', dev, 'root', 'handle', '1:', 'htb', 'default', '2']);
      await run('tc', ['-n', netns, 'class', 'add', 'dev', dev, 'parent', '1:', 'classid', '1:1', 'htb', 'rate', '10gbit']);
      await run('tc', ['-n', netns, 'class', 'add', 'dev', dev, 'parent', '1:', 'classid', '1:2', 'htb', 'rate', `${kbit}kbit`, 'ceil', `${kbit}kbit`]);
    }
    // In the member's namespace, its metrics answers take the fast class (htb picks the class that
    // skb->priority names).
    await LinkFaults.#nft(
      node.netns,
      [
        'add table inet slow',
        'add chain inet slow out { type filter hook output priority 0; policy accept; }',
        `add rule inet slow out tcp sport ${METRICS_PORT} meta priority set 1:1`,
      ].join('\n'),
    );
    return this.#track(label, async () => {
      // A congested link that recovers drains its queue: lift the rate first, so that what is queued is
      // delivered (deleting the qdisc at once would drop it, and TCP would back off for seconds).
      for (const { netns, dev } of links) {
        await run('tc', ['-n', netns, 'class', 'change', 'dev', dev, 'parent', '1:', 'classid', '1:2', 'htb', 'rate', '10gbit']).catch(() => undefined);
      }
      for (const { netns, dev } of links) await LinkFaults.#drained(netns, dev);
      for (const { netns, dev } of links) await run('tc', ['-n', netns, 'qdisc', 'del', 'dev', dev, 'root']).catch(() => undefined);
      await LinkFaults.#nft(node.netns, 'delete table inet slow').catch(() => undefined);
    });
  }

  // Waits (at most a second) until a qdisc holds no packets.
  static async #drained(netns: string, dev: string): Promise<void> {
    for (let i = 0; i < 20; i++) {
      const stats = await run('tc', ['-n', netns, '-s', 'qdisc', 'show', 'dev', dev, 'root']).catch(() => '');
      if (!/backlog \S+ [1-9]\d*p/.test(stats)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Labels of the faults in place. */
  get active(): string[] {
    return [...this.#healers.keys()];
  }

  /** Heals every fault in place. */
  async healAll(): Promise<void> {
    for (const label of [...this.#healers.keys()]) {
      const heal = this.#healers.get(label);
      this.#healers.delete(label);
      await heal?.();
    }
  }
}
