/** Why one call to one member failed, in words an operator can act on. */
export interface ProbeError {
  readonly code: ProbeErrorCode;
  readonly message: string;
}

/** The kinds of failure the probe tells apart. */
export type ProbeErrorCode =
  | 'CONNECTION_REFUSED'
  | 'DNS_FAILURE'
  | 'TIMEOUT'
  | 'TLS_UNTRUSTED_SERVER'
  | 'TLS_CERT_EXPIRED'
  | 'TLS_CERT_NOT_YET_VALID'
  | 'TLS_NAME_MISMATCH'
  | 'TLS_CLIENT_REJECTED'
  | 'TLS_HANDSHAKE'
  | 'UNAVAILABLE'
  | 'NO_LEADER'
  | 'LEARNER_READ_REJECTED'
  | 'PERMISSION_DENIED'
  | 'UNAUTHENTICATED'
  | 'ETCD_ERROR'
  | 'WRONG_CLUSTER';

/** A call's result as data: its value or its error, and how long it took. Never a throw. */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T; readonly ms: number }
  | { readonly ok: false; readonly error: ProbeError; readonly ms: number };
