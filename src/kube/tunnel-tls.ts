import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type SecureContext } from 'node:tls';
import type { ProbeError } from '../probe/outcome.ts';

/**
 * TLS to the pod's port, made by the tunnel: what dials the listener then speaks plain bytes (etcd's TLS
 * runs between the tunnel and etcd, through the port-forward).
 */
export interface TunnelTls {
  readonly context: SecureContext;
  /** The name sent (SNI) and checked against the serving certificate. */
  readonly servername: string;
  /** ALPN protocols to offer, e.g. `h2` for gRPC. */
  readonly alpn: readonly string[];
  /** What a failed handshake means, for the caller (its error codes are the caller's). */
  readonly describe: (error: Error) => ProbeError;
}

/**
 * What a tunnel's TLS keeps from one connection to the next: the last session, which the next handshake
 * resumes (skipping the certificates and their checks), and how many handshakes were full or resumed.
 */
export class TunnelSessions {
  last: Buffer | undefined;
  readonly handshakes = { full: 0, resumed: 0 };
}

/**
 * TLS over a port-forward (`wire`, the near end of the pair the port-forward carries), resuming the last
 * session, and the plain bytes piped between it and `plain` (the accepted socket) once the handshake is
 * done. A failed handshake goes to `fail` and ends the socket; either side closing closes the other.
 */
export function secureOver(plain: Socket, wire: Duplex, tls: TunnelTls, sessions: TunnelSessions, fail: (error: ProbeError) => void): void {
  const secure = tlsConnect({ socket: wire, secureContext: tls.context, servername: tls.servername, ALPNProtocols: [...tls.alpn], ...(sessions.last ? { session: sessions.last } : {}) });
  secure.on('session', (session: Buffer) => {
    sessions.last = session;
  });
  secure.on('error', (error) => {
    if (!plain.destroyed) fail(tls.describe(error));
    plain.destroy();
  });
  secure.once('secureConnect', () => {
    if (secure.isSessionReused()) sessions.handshakes.resumed++;
    else sessions.handshakes.full++;
    plain.pipe(secure);
    secure.pipe(plain);
    plain.resume();
  });
  secure.on('close', () => plain.destroy());
  plain.on('close', () => {
    secure.destroy();
    wire.destroy();
  });
}
