import { freePorts } from '#lab/ports/free-port.ts';

// Lab: where the members of an EtcdCluster listen and how their processes are launched. The
// default puts every member on free loopback ports; netns-network.ts puts each in its own namespace.

/** One member's host and its client, peer and metrics ports. */
export interface MemberAddress {
  readonly host: string;
  readonly client: number;
  readonly peer: number;
  readonly metrics: number;
}

/** Decides members' addresses and how their etcd process starts. */
export interface MemberPlacement {
  /** Addresses for new members, one per name, in order. */
  addresses(names: readonly string[]): Promise<MemberAddress[]>;
  /** The command etcd's own command line is appended to (e.g. `ip netns exec <ns>`); none when absent. */
  launcher?(name: string): readonly string[];
  /** Whether each member gets a serving certificate naming its own host (it must when hosts differ). */
  readonly ownCertificates?: boolean;
}

/** Every member on 127.0.0.1, on ports the kernel reports free. */
export const loopbackPlacement: MemberPlacement = {
  async addresses(names) {
    const ports = await freePorts(names.length * 3);
    return names.map((_, i) => ({
      host: '127.0.0.1',
      client: ports[i * 3] as number,
      peer: ports[i * 3 + 1] as number,
      metrics: ports[i * 3 + 2] as number,
    }));
  },
};
