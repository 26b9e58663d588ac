import { Etcd3MemberClient } from '../etcd/etcd3-member-client.ts';
import { PortForwardTunnel, type TunnelOptions } from '../kube/port-forward-tunnel.ts';
import type { MemberClient } from '../probe/member-client.ts';
import type { Outcome } from '../probe/outcome.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';

/**
 * kubeadm puts `localhost` into every etcd serving certificate; through a tunnel the dialled host is
 * 127.0.0.1, so the chain is verified against etcd's CA and the name checked is `localhost`.
 */
export const TUNNEL_SERVER_NAME = 'localhost';

/** A member client whose connection runs through its own port-forward tunnel. */
export interface TunnelledClientOptions extends TunnelOptions {
  /** The endpoint shown to operators. */
  readonly endpoint: string;
  readonly tls: TlsMaterial;
}

/**
 * An etcd client dialling a port-forward tunnel that it owns: closing the client closes the tunnel. A
 * failed call that coincides with a tunnel failure reports the tunnel's error (layer kube-api or
 * port-forward) instead of gRPC's vaguer one, which is the point of naming layers.
 */
export class TunnelledMemberClient implements MemberClient {
  readonly #tunnel: PortForwardTunnel;
  readonly #etcd: Etcd3MemberClient;

  constructor(options: TunnelledClientOptions) {
    this.#tunnel = new PortForwardTunnel(options);
    this.#etcd = new Etcd3MemberClient({
      endpoint: options.endpoint,
      tls: options.tls,
      timeoutMs: options.timeoutMs,
      dialAddress: this.#tunnel.address,
      secure: options.tls.ca !== null || options.tls.cert !== null,
      channelOptions: { 'grpc.ssl_target_name_override': TUNNEL_SERVER_NAME, 'grpc.default_authority': TUNNEL_SERVER_NAME },
    });
  }

  async #through<T>(call: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
    const since = performance.now();
    const outcome = await call();
    if (outcome.ok) return outcome;
    const tunnelError = this.#tunnel.failureSince(since);
    return tunnelError ? { ok: false, error: tunnelError, ms: outcome.ms } : outcome;
  }

  status() {
    return this.#through(() => this.#etcd.status());
  }

  healthRead() {
    return this.#through(() => this.#etcd.healthRead());
  }

  memberList() {
    return this.#through(() => this.#etcd.memberList());
  }

  alarmList() {
    return this.#through(() => this.#etcd.alarmList());
  }

  /** Open sockets and WebSockets of the tunnel, for leak checks. */
  get openTunnelConnections(): number {
    return this.#tunnel.openCount;
  }

  close(): void {
    this.#etcd.close();
    void this.#tunnel.close();
  }
}
