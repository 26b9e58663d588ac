import { describeError } from '../etcd/describe-error.ts';
import { Etcd3MemberClient } from '../etcd/etcd3-member-client.ts';
import { PortForwardTunnel, type TunnelOptions } from '../kube/port-forward-tunnel.ts';
import type { TunnelTls } from '../kube/tunnel-tls.ts';
import type { MemberClient } from '../probe/member-client.ts';
import { probeError, type Outcome, type ProbeError } from '../probe/outcome.ts';
import { secureContextOf } from '../tls/secure-context.ts';
import type { TlsMaterial } from '../tls/tls-files.ts';

/**
 * kubeadm puts `localhost` into every etcd serving certificate; through a tunnel the dialled address is
 * a unix socket with no host name, so the chain is verified against etcd's CA and the name checked
 * (and sent as SNI) is `localhost`.
 */
export const TUNNEL_SERVER_NAME = 'localhost';

/** A member client whose connection runs through its own port-forward tunnel. */
export interface TunnelledClientOptions extends Omit<TunnelOptions, 'tls'> {
  /** The endpoint shown to operators. */
  readonly endpoint: string;
  readonly tls: TlsMaterial;
}

/**
 * etcd's TLS as the tunnel makes it: verified against the material's CA, the name `localhost`, ALPN h2
 * (gRPC), and a failed handshake described as gRPC's would be (TLS_UNTRUSTED_SERVER and the like).
 */
function tunnelTls(options: TunnelledClientOptions): TunnelTls {
  return {
    context: secureContextOf(options.tls),
    servername: TUNNEL_SERVER_NAME,
    alpn: ['h2'],
    describe: (error) => describeError(error, options.endpoint, options.timeoutMs, 'status', Boolean(options.tls.cert && options.tls.key)),
  };
}

/**
 * An etcd client dialling a port-forward tunnel that it owns: closing the client closes the tunnel. A
 * failed call while the tunnel is broken reports the tunnel's error (layer kube-api or port-forward)
 * instead of gRPC's vaguer one, which is the point of naming layers.
 *
 * etcd's TLS is made by the tunnel, not by gRPC, which speaks plain HTTP/2 to the tunnel's private unix
 * socket: so a connection resumes the tunnel's last TLS session with the member, and a fleet that dials
 * every member every round (ETCD_PROBE_FLEET_HOLD_CONNECTIONS=false) skips most of each handshake.
 */
export class TunnelledMemberClient implements MemberClient {
  readonly #tunnel: PortForwardTunnel;
  // Made once the tunnel's listener is bound (it needs the port), or why it could not be.
  readonly #etcd: Promise<Etcd3MemberClient | ProbeError>;
  /** The etcd client once made, for release() (which must act at once, not a microtask later). */
  #made: Etcd3MemberClient | null = null;
  #closed = false;

  constructor(options: TunnelledClientOptions) {
    const secure = options.tls.ca !== null || options.tls.cert !== null;
    const { tls: _material, ...where } = options;
    this.#tunnel = new PortForwardTunnel({ ...where, ...(secure ? { tls: tunnelTls(options) } : {}) });
    this.#etcd = this.#tunnel.ready.then(
      (dialAddress) =>
        new Etcd3MemberClient({
          endpoint: options.endpoint,
          tls: { ca: null, cert: null, key: null },
          timeoutMs: options.timeoutMs,
          dialAddress,
          secure: false,
          channelOptions: { 'grpc.default_authority': TUNNEL_SERVER_NAME },
        }),
      (error: Error) => probeError('PORT_FORWARD_FAILED', `cannot open the local tunnel listener: ${error.message}`),
    );
    // A client closed before its listener was bound closes the etcd client as soon as it exists.
    void this.#etcd.then((etcd) => {
      if (!(etcd instanceof Etcd3MemberClient)) return;
      if (this.#closed) etcd.close();
      else this.#made = etcd;
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

  hashKv(revision: string, timeoutMs: number) {
    return this.#through((etcd) => etcd.hashKv(revision, timeoutMs));
  }

  /** The TLS handshakes with the member so far, full and resumed. */
  get handshakes(): { readonly full: number; readonly resumed: number } {
    return this.#tunnel.handshakes;
  }

  /**
   * Ends the tunnel's connections, and with them gRPC's, keeping the channel (making a new one would
   * cost more than reconnecting it); resolves once gRPC saw its connection close, so that the next
   * call dials a new port-forward instead of landing on the closing one.
   */
  async release(): Promise<void> {
    this.#tunnel.dropConnections();
    await this.#made?.disconnected();
  }

  close(): void {
    this.#closed = true;
    void this.#etcd.then((etcd) => {
      if (etcd instanceof Etcd3MemberClient) etcd.close();
    });
    void this.#tunnel.close();
  }
}
