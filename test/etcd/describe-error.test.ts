import {
  EtcdError,
  EtcdInvalidAuthTokenError,
  EtcdPermissionDeniedError,
  GRPCDeadlineExceededError,
  GRPCUnauthenticatedError,
  GRPCUnavailableError,
} from 'etcd3';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/etcd/describe-error.ts';
import type { ProbeError, ProbeErrorCode } from '../../src/probe/outcome.ts';

const ENDPOINT = 'https://10.0.0.1:2379';

/** A grpc-js "No connection established" message around lastError, as captured from real failures. */
function noConnection(lastError: string): GRPCUnavailableError {
  return new GRPCUnavailableError(`14 UNAVAILABLE: No connection established. Last error: ${lastError}. Resolution note: `);
}

/** Asserts the code exactly and that the message holds each key part (the wording around them may evolve). */
function expectDescribed(described: ProbeError, code: ProbeErrorCode, ...parts: string[]): void {
  expect(described.code).toBe(code);
  expect(described.layer).toBe(code.startsWith('TLS_') ? 'tls' : 'etcd');
  for (const part of parts) expect(described.message).toContain(part);
  // grpc-js framing is never worth showing to an operator.
  expect(described.message).not.toMatch(/14 UNAVAILABLE|No connection established|Resolution note|Last error/);
}

describe('describeError: messages captured from grpc-js', () => {
  it('reports a refused connection, naming the endpoint', () => {
    const error = new GRPCUnavailableError(
      '14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:32999. Resolution note: ',
    );
    expectDescribed(describeError(error, 'http://127.0.0.1:32999', 2000), 'CONNECTION_REFUSED', 'connection refused by http://127.0.0.1:32999');
  });

  it('reports a server certificate of an unknown CA', () => {
    const error = new GRPCUnavailableError(
      '14 UNAVAILABLE: No connection established. Last error: Error: unable to verify the first certificate; if the root CA is installed locally, try running Node.js with --use-system-ca. Resolution note: ',
    );
    expectDescribed(describeError(error, ENDPOINT, 2000), 'TLS_UNTRUSTED_SERVER', 'not signed by the configured CA');
  });

  it('reports a rejected client certificate with the alert, without the OpenSSL noise', () => {
    const error = new GRPCUnavailableError(
      '14 UNAVAILABLE: No connection established. Last error: 402D66B5FB7F0000:error:0A000412:SSL routines:ssl3_read_bytes:ssl/tls alert bad certificate:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 42\n (2026-12-02T11:10:55.941Z). Resolution note: ',
    );
    const described = describeError(error, ENDPOINT, 2000);
    expectDescribed(described, 'TLS_CLIENT_REJECTED', 'rejected the client certificate', 'ssl/tls alert bad certificate', '--trusted-ca-file');
    for (const noise of ['402D66B5FB7F0000', '0A000412', 'SSL routines', 'ssl3_read_bytes', 'rec_layer_s3.c', 'SSL alert number', '2026-12-02', '\n']) {
      expect(described.message).not.toContain(noise);
    }
  });

  it('says no client certificate is configured when none was offered, instead of blaming one (issue 26)', () => {
    const error = new GRPCUnavailableError(
      '14 UNAVAILABLE: No connection established. Last error: 402D66B5FB7F0000:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 116\n (2026-12-02T11:10:55.941Z). Resolution note: ',
    );
    const none = describeError(error, ENDPOINT, 2000, 'status', false);
    expectDescribed(none, 'TLS_CLIENT_REJECTED', 'none is configured', 'ETCD_PROBE_CERT and ETCD_PROBE_KEY', 'tlsv13 alert certificate required');
    expect(none.message).not.toContain('rejected the client certificate');
    expectDescribed(describeError(error, ENDPOINT, 2000, 'status', true), 'TLS_CLIENT_REJECTED', 'rejected the client certificate', '--trusted-ca-file');
  });

  it('reports https:// to a plain-text port as a failed handshake, suspecting the scheme', () => {
    const error = new GRPCUnavailableError(
      '14 UNAVAILABLE: No connection established. Last error: Error: Client network socket disconnected before secure TLS connection was established. Resolution note: ',
    );
    expectDescribed(
      describeError(error, ENDPOINT, 2000),
      'TLS_HANDSHAKE',
      'TLS handshake with https://10.0.0.1:2379 failed',
      '(Client network socket disconnected before secure TLS connection was established)',
      'scheme',
    );
  });
});

describe('describeError: by error class', () => {
  it('reports a deadline with the endpoint and the timeout', () => {
    const described = describeError(new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded'), ENDPOINT, 1500);
    expectDescribed(described, 'TIMEOUT', 'https://10.0.0.1:2379', '1500ms');
    expect(described.message).toBe('no answer from https://10.0.0.1:2379 within 1500ms');
  });

  it('reports a permission denial as RBAC', () => {
    expectDescribed(describeError(new EtcdPermissionDeniedError('etcdserver: permission denied'), ENDPOINT, 2000), 'PERMISSION_DENIED', 'RBAC');
  });

  it.each([
    ['GRPCUnauthenticatedError', new GRPCUnauthenticatedError('16 UNAUTHENTICATED: etcdserver: user name is empty')],
    ['EtcdInvalidAuthTokenError', new EtcdInvalidAuthTokenError('etcdserver: invalid auth token')],
  ])('reports %s as unauthenticated', (_name, error) => {
    expectDescribed(describeError(error, ENDPOINT, 2000), 'UNAUTHENTICATED', 'identity');
  });
});

describe('describeError: etcd server errors', () => {
  it.each<[string, ProbeErrorCode, string]>([
    ['etcdserver: rpc not supported for learner', 'LEARNER_READ_REJECTED', 'learner'],
    ['etcdserver: no leader', 'NO_LEADER', 'no leader'],
    ['etcdserver: request timed out', 'TIMEOUT', 'timed the request out (no quorum, or a slow disk)'],
    ['etcdserver: leader changed', 'LEADER_CHANGED', 'an election just happened'],
    ['etcdserver: too many requests', 'TOO_MANY_REQUESTS', 'applied index trails its committed index by more than 5000'],
    ['etcdserver: request timed out, possibly due to previous leader failure', 'TIMEOUT', 'after the leader failed'],
    ['etcdserver: request timed out, possibly due to connection lost', 'TIMEOUT', 'lost its connection to the leader'],
    ['etcdserver: request timed out, waiting for the applied index took too long', 'TIMEOUT', 'waiting for the member to apply'],
    ['etcdserver: server stopped', 'UNAVAILABLE', 'the member is stopping'],
  ])('reports %j', (text, code, part) => {
    expectDescribed(describeError(new EtcdError(text), ENDPOINT, 2000), code, part);
  });

  it('never blames the scheme or the listener for an election (gRPC UNAVAILABLE around etcd errors)', () => {
    for (const text of ['etcdserver: leader changed', 'etcdserver: no leader', 'etcdserver: request timed out, possibly due to previous leader failure']) {
      const described = describeError(new GRPCUnavailableError(`14 UNAVAILABLE: ${text}`), ENDPOINT, 2000);
      expect(described.code).not.toBe('UNAVAILABLE');
      expect(described.message).not.toMatch(/scheme|listening/);
    }
  });

  it('says a read that timed out was not confirmed by a leader, not that the member is unreachable', () => {
    const read = describeError(new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded'), ENDPOINT, 1000, 'read');
    expectDescribed(read, 'TIMEOUT', 'the linearizable read got no answer within 1000ms: no leader confirmed it');
    expect(read.message).not.toContain(ENDPOINT);
    // etcd 3.4 answers a read past the client's deadline with its own context's error.
    expectDescribed(describeError(new EtcdError('2 UNKNOWN: context deadline exceeded'), ENDPOINT, 1000, 'read'), 'TIMEOUT', 'no leader confirmed it');
    const status = describeError(new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded'), ENDPOINT, 1000, 'status');
    expectDescribed(status, 'TIMEOUT', `no answer from ${ENDPOINT} within 1000ms`);
  });

  it('passes an unrecognised etcd error through as ETCD_ERROR', () => {
    expect(describeError(new EtcdError('etcdserver: mvcc: database space exceeded'), ENDPOINT, 2000)).toEqual({
      code: 'ETCD_ERROR',
      message: 'etcdserver: mvcc: database space exceeded',
      layer: 'etcd',
    });
  });
});

describe('describeError: TLS and name failures', () => {
  it.each<[string, ProbeErrorCode, string[]]>([
    ['Error: certificate has expired', 'TLS_CERT_EXPIRED', ['serving certificate has expired']],
    ['Error [CERT_HAS_EXPIRED]: x', 'TLS_CERT_EXPIRED', ['serving certificate has expired']],
    ['Error: certificate is not yet valid', 'TLS_CERT_NOT_YET_VALID', ['not yet valid', 'clocks']],
    ['Error: self-signed certificate', 'TLS_UNTRUSTED_SERVER', ['not signed by the configured CA']],
    ['Error: self signed certificate in certificate chain', 'TLS_UNTRUSTED_SERVER', ['not signed by the configured CA']],
    ['Error: unable to get local issuer certificate', 'TLS_UNTRUSTED_SERVER', ['not signed by the configured CA']],
    [
      "Error [ERR_TLS_CERT_ALTNAME_INVALID]: Hostname/IP does not match certificate's altnames: IP: 10.0.0.1 is not in the cert's list: 127.0.0.1",
      'TLS_NAME_MISMATCH',
      ['does not name the host of https://10.0.0.1:2379'],
    ],
    ['Error: getaddrinfo ENOTFOUND etcd-0.invalid', 'DNS_FAILURE', ['cannot resolve the host of https://10.0.0.1:2379']],
    ['Error: getaddrinfo EAI_AGAIN etcd-0.etcd', 'DNS_FAILURE', ['cannot resolve the host of https://10.0.0.1:2379']],
    [
      '40F7A1B2C3D40000:error:0A000415:SSL routines:ssl3_read_bytes:ssl/tls alert certificate expired:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 45\n (2026-12-02T11:10:55.941Z)',
      'TLS_CLIENT_REJECTED',
      ['rejected the client certificate as expired'],
    ],
    [
      '40F7A1B2C3D40000:error:0A000418:SSL routines:ssl3_read_bytes:tlsv1 alert unknown ca:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 48\n (2026-12-02T11:10:55.941Z)',
      'TLS_CLIENT_REJECTED',
      ['(tlsv1 alert unknown ca)', '--trusted-ca-file'],
    ],
    [
      '40F7A1B2C3D40000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:355:\n (2026-12-02T11:10:55.941Z)',
      'TLS_HANDSHAKE',
      ['TLS handshake with https://10.0.0.1:2379 failed (wrong version number)'],
    ],
  ])('classifies %j', (lastError, code, parts) => {
    expectDescribed(describeError(noConnection(lastError), ENDPOINT, 2000), code, ...parts);
  });

  it('reports a failed name resolution of the gRPC resolver', () => {
    const error = new GRPCUnavailableError('14 UNAVAILABLE: Name resolution failed for target dns:etcd-0.invalid:2379');
    expectDescribed(describeError(error, 'http://etcd-0.invalid:2379', 2000), 'DNS_FAILURE', 'cannot resolve the host of http://etcd-0.invalid:2379');
  });
});

describe('describeError: anything else', () => {
  it('reports other unavailability with the endpoint and the detail, without the gRPC prefix', () => {
    const described = describeError(new GRPCUnavailableError('14 UNAVAILABLE: Connection dropped'), ENDPOINT, 2000);
    expectDescribed(described, 'UNAVAILABLE', 'cannot reach https://10.0.0.1:2379: Connection dropped');
  });

  it('extracts the last error of an unrecognised connection failure', () => {
    const described = describeError(noConnection('Error: read ECONNRESET'), ENDPOINT, 2000);
    expectDescribed(described, 'UNAVAILABLE', 'cannot reach https://10.0.0.1:2379: read ECONNRESET');
    expect(described.message).not.toContain('Error: read');
  });

  it('passes a plain error through as ETCD_ERROR', () => {
    expect(describeError(new Error('something odd'), ENDPOINT, 2000)).toEqual({ code: 'ETCD_ERROR', message: 'something odd', layer: 'etcd' });
  });

  it('accepts a thrown non-error', () => {
    expect(describeError('a string was thrown', ENDPOINT, 2000)).toEqual({ code: 'ETCD_ERROR', message: 'a string was thrown', layer: 'etcd' });
  });

  it('collapses whitespace in the detail', () => {
    expect(describeError(new Error('two\n   lines'), ENDPOINT, 2000)).toEqual({ code: 'ETCD_ERROR', message: 'two lines', layer: 'etcd' });
  });
});
