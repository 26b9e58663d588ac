import {
  EtcdInvalidAuthTokenError,
  EtcdPermissionDeniedError,
  GRPCDeadlineExceededError,
  GRPCUnauthenticatedError,
} from 'etcd3';
import { probeError, type ProbeError, type ProbeErrorCode } from '../probe/outcome.ts';

interface Rule {
  readonly test: RegExp;
  readonly code: ProbeErrorCode;
  readonly say: (endpoint: string, detail: string, presentsCertificate: boolean) => string;
}

// Ordered: the first rule whose pattern is found in the error's text decides.
const RULES: readonly Rule[] = [
  { test: /rpc not supported for learner/, code: 'LEARNER_READ_REJECTED', say: () => 'a learner does not serve linearizable reads' },
  { test: /etcdserver: no leader/, code: 'NO_LEADER', say: () => 'the member knows no leader (an election is under way, or it is cut off from its peers)' },
  {
    test: /etcdserver: leader changed/,
    code: 'LEADER_CHANGED',
    say: () => 'the leader changed while the request was in flight: an election just happened (a passing state, asked again next round)',
  },
  {
    test: /etcdserver: too many requests/,
    code: 'TOO_MANY_REQUESTS',
    say: () => 'the member rejects requests: its applied index trails its committed index by more than 5000 entries (a slow disk or CPU, or too many writes)',
  },
  {
    test: /etcdserver: request timed out, possibly due to previous leader failure/,
    code: 'TIMEOUT',
    say: () => 'etcd timed the request out after the leader failed (an election is under way)',
  },
  {
    test: /etcdserver: request timed out, possibly due to connection lost/,
    code: 'TIMEOUT',
    say: () => 'etcd timed the request out: the member lost its connection to the leader',
  },
  {
    test: /etcdserver: request timed out, waiting for the applied index/,
    code: 'TIMEOUT',
    say: () => 'etcd timed the read out waiting for the member to apply the log up to the read index (a slow disk or an overloaded member)',
  },
  { test: /etcdserver: request timed out/, code: 'TIMEOUT', say: () => 'etcd timed the request out (no quorum, or a slow disk)' },
  { test: /etcdserver: server stopped/, code: 'UNAVAILABLE', say: () => 'the member is stopping (etcdserver: server stopped)' },
  { test: /ECONNREFUSED/, code: 'CONNECTION_REFUSED', say: (e) => `connection refused by ${e}: is etcd running and listening there?` },
  { test: /ENOTFOUND|EAI_AGAIN|Name resolution failed/, code: 'DNS_FAILURE', say: (e) => `cannot resolve the host of ${e}` },
  {
    test: /certificate has expired|CERT_HAS_EXPIRED/,
    code: 'TLS_CERT_EXPIRED',
    say: () => "TLS: etcd's serving certificate has expired",
  },
  {
    test: /certificate is not yet valid|CERT_NOT_YET_VALID/,
    code: 'TLS_CERT_NOT_YET_VALID',
    say: () => "TLS: etcd's serving certificate is not yet valid (check the clocks)",
  },
  {
    test: /unable to verify|unable to get local issuer|self[- ]signed certificate|UNABLE_TO_VERIFY|DEPTH_ZERO_SELF_SIGNED/,
    code: 'TLS_UNTRUSTED_SERVER',
    say: () => "TLS: etcd's serving certificate is not signed by the configured CA (unknown authority)",
  },
  {
    test: /does not match certificate's altnames|ERR_TLS_CERT_ALTNAME_INVALID/,
    code: 'TLS_NAME_MISMATCH',
    say: (e) => `TLS: etcd's serving certificate does not name the host of ${e}`,
  },
  {
    test: /alert certificate expired/,
    code: 'TLS_CLIENT_REJECTED',
    say: () => 'TLS: etcd rejected the client certificate as expired',
  },
  {
    test: /alert (bad certificate|certificate unknown|unknown ca|certificate required|handshake failure)/,
    code: 'TLS_CLIENT_REJECTED',
    say: (_e, d, presents) =>
      presents
        ? `TLS: etcd rejected the client certificate (${d}); is it signed by etcd's --trusted-ca-file?`
        : `TLS: etcd asks for a client certificate (--client-cert-auth) and none is configured (${d}): set ETCD_PROBE_CERT and ETCD_PROBE_KEY (cert and key in a clusters file)`,
  },
  {
    test: /before secure TLS connection was established|wrong version number|packet length too long|TLS|SSL/,
    code: 'TLS_HANDSHAKE',
    say: (e, d) => `TLS handshake with ${e} failed (${d}); does the endpoint's scheme match what etcd serves?`,
  },
];

function detailOf(message: string): string {
  const lastError = /Last error: (?:Error: )?(.*?)(?:\s*\(\d{4}-\d\d-\d\dT[^)]*\))?\.?\s*(?:Resolution note:.*)?$/s.exec(message);
  const text = (lastError?.[1] ?? message).replace(/^\d+ [A-Z_]+: /, '');
  // OpenSSL writes "<hex>:error:<code>:SSL routines:<fn>:<reason>:<file>:<line>:..."; keep the reason.
  const openssl = /:error:[0-9A-F]+:[^:]+:[^:]+:([^:]+):/.exec(text);
  return (openssl?.[1] ?? text).trim().replace(/\s+/g, ' ');
}

/** Which call failed: a linearizable read that times out means something else than a Status that does. */
export type CallKind = 'status' | 'read' | 'member-list' | 'alarm-list' | 'hash-kv';

/**
 * Turns an etcd3 / gRPC error into a ProbeError whose message says what failed and what to check.
 * `presentsCertificate`: whether the client offered a certificate, so that a TLS rejection by a member
 * that requires one says "none is configured" rather than blaming a certificate that does not exist.
 */
export function describeError(error: unknown, endpoint: string, timeoutMs: number, call: CallKind = 'status', presentsCertificate = true): ProbeError {
  // etcd 3.4 can answer a read past its deadline with "2 UNKNOWN: context deadline exceeded" (its own context).
  if (error instanceof GRPCDeadlineExceededError || /context deadline exceeded/.test(error instanceof Error ? error.message : '')) {
    // A read waits for the leader to confirm it with a quorum: its timeout speaks of consensus, not of the member.
    if (call === 'read') {
      return probeError(
        'TIMEOUT',
        `the linearizable read got no answer within ${timeoutMs}ms: no leader confirmed it (an election, a hung or unreachable leader, or the member is cut off from its peers)`,
      );
    }
    return probeError('TIMEOUT', `no answer from ${endpoint} within ${timeoutMs}ms`);
  }
  if (error instanceof EtcdPermissionDeniedError) {
    return probeError('PERMISSION_DENIED', 'etcd denied the call (RBAC: the client certificate\'s user lacks a role for it)');
  }
  if (error instanceof GRPCUnauthenticatedError || error instanceof EtcdInvalidAuthTokenError) {
    return probeError('UNAUTHENTICATED', 'etcd did not accept the client\'s identity');
  }
  const message = error instanceof Error ? error.message : String(error);
  const detail = detailOf(message);
  for (const rule of RULES) {
    if (rule.test.test(message)) return probeError(rule.code, rule.say(endpoint, detail, presentsCertificate));
  }
  if (/^14 UNAVAILABLE|UNAVAILABLE/.test(message)) {
    return probeError('UNAVAILABLE', `cannot reach ${endpoint}: ${detail} (is etcd listening there, and does the scheme, http:// or https://, match?)`);
  }
  return probeError('ETCD_ERROR', detail);
}
