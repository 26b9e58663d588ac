import { Etcd3MemberClient } from '../etcd/etcd3-member-client.ts';
import { PortForwardTunnel, type TunnelOptions } from '../kube/port-forward-tunnel.ts';
import type { MemberClient } from '../probe/member-client.ts';
import { probeError, type Outcome, type ProbeError } from '../probe/outcome.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';

/**
 * kubeadm puts `localhost` into every etcd serving certificate; through a tunnel the dialled address is
 * a unix socket with no host name, so the chain is verified against etcd's CA and the name checked
 * (and sent as SNI) is `localhost`.
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
 * failed call while the tunnel is broken reports the tunnel's error (layer kube-api or port-forward)
 * instead of gRPC's vaguer one, which is the point of naming layers.
 */
export class TunnelledMemberClient implements MemberClient {
  readonly #tunnel: PortForwardTunnel;
  // Made once the tunnel's listener is bound (it needs the port), or why it could not be.
  readonly #etcd: Promise<Etcd3MemberClient | ProbeError>;
  #closed = false;

  constructor(options: TunnelledClientOptions) {
    this.#tunnel = new PortForwardTunnel(options);
    this.#etcd = this.#tunnel.ready.then(
      (dialAddress) =>
        new Etcd3MemberClient({
          endpoint: options.endpoint,
          tls: options.tls,
          timeoutMs: options.timeoutMs,
          dialAddress,
          secure: options.tls.ca !== null || options.tls.cert !== null,
          channelOptions: { 'grpc.ssl_target_name_override': TUNNEL_SERVER_NAME, 'grpc.default_authority': TUNNEL_SERVER_NAME },
        }),
      (error: Error) => probeError('PORT_FORWARD_FAILED', `cannot open the local tunnel listener: ${error.message}`),
    );
    // A client closed before its listener was bound closes the etcd client as soon as it exists.
    void this.#etcd.then((etcd) => {
      if (this.#closed && etcd instanceof Etcd3MemberClient) etcd.close();
    });
  }

  async #through<T>(call: (etcd: Etcd3MemberClient) => Promise<Outcome<T>>): Promise<Outcome<T>> {
    const etcd = await this.#etcd;
    if (!(etcd instanceof Etcd3MemberClient)) return { ok: false, error: etcd, ms: 0 };
    const outcome = await call(etcd);
    if (outcome.ok) return outcome;
    const tunnelError = this.#tunnel.failure;
    return tunnelError ? { ok: false, error: tunnelError, ms: outcome.ms } : outcome;
  }

  status() {
    return this.#through((etcd) => etcd.status());
  }

  healthRead() {
    return this.#through((etcd) => etcd.healthRead());
  }

  memberList() {
    return this.#through((etcd) => etcd.memberList());
  }

  alarmList() {
    return this.#through((etcd) => etcd.alarmList());
  }

  close(): void {
    this.#closed = true;
    void this.#etcd.then((etcd) => {
      if (etcd instanceof Etcd3MemberClient) etcd.close();
    });
    void this.#tunnel.close();
  }
}
