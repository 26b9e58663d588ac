import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { describeKubeFailure } from '../../src/kube/kube-error.ts';
import { PEER_TEXT_MAX_CHARS, sanitisePeerText, statusMessageOf } from '../../src/kube/peer-text.ts';

const status = (message: string, code = 403) => ({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code });

describe('statusMessageOf', () => {
  it('reflects the message of a Status object', () => {
    expect(statusMessageOf(JSON.stringify(status('nodes is forbidden')), 403)).toBe('nodes is forbidden');
    expect(statusMessageOf(status('nodes is forbidden'), 403)).toBe('nodes is forbidden');
  });

  it('caps a long Status message and says it was cut', () => {
    const text = statusMessageOf(JSON.stringify(status('x'.repeat(3000))), 403);
    expect(text).toHaveLength(PEER_TEXT_MAX_CHARS);
    expect(text.endsWith('…')).toBe(true);
  });

  it('strips control and bidi characters from a Status message', () => {
    expect(statusMessageOf(status('a\u001b[31mb\r\nc\u202ed\u0000'), 500)).toBe('a [31mb c d');
  });

  it.each([
    ['HTML', '<html><body>secret internal page</body></html>', 502, 'HTTP 502 Bad Gateway'],
    ['plain text', 'internal service banner v1.2', 500, 'HTTP 500 Internal Server Error'],
    ['JSON of another shape', JSON.stringify({ message: 'not a Status' }), 404, 'HTTP 404 Not Found'],
    ['a Status whose message is blank', JSON.stringify(status('  \u0007 ')), 403, 'HTTP 403 Forbidden'],
    ['an empty body', '', 599, 'HTTP 599'],
    ['a body past the read cap', JSON.stringify(status('y'.repeat(20_000))), 403, 'HTTP 403 Forbidden'],
  ])('gives only the status name for %s', (_what, body, code, expected) => {
    expect(statusMessageOf(body, code)).toBe(expected);
  });
});

describe('sanitisePeerText', () => {
  it('collapses blanks and keeps short text as it is', () => {
    expect(sanitisePeerText('  connect   ECONNREFUSED 10.0.0.1:6443 ')).toBe('connect ECONNREFUSED 10.0.0.1:6443');
  });
});

describe('describeKubeFailure with a peer answer', () => {
  it('does not reflect a 3 KB Status message whole (issue 25, hole 1)', () => {
    const big = `forbidden: ${'A'.repeat(3000)}`;
    const error = describeKubeFailure(new ApiException(403, 'Forbidden', JSON.stringify(status(big)), {}), 'list nodes', 'https://10.0.0.1:6443', null);
    expect(error.kind).toBe('forbidden');
    expect(error.message).not.toContain('A'.repeat(PEER_TEXT_MAX_CHARS));
    expect(error.message.length).toBeLessThan(PEER_TEXT_MAX_CHARS + 100);
  });

  it('does not reflect a body that is not a Status', () => {
    const error = describeKubeFailure(new ApiException(500, 'x', '<h1>welcome to the intranet</h1>', {}), 'list nodes', 'https://10.0.0.1:6443', null);
    expect(error.message).toBe('list nodes: HTTP 500 Internal Server Error (HTTP 500 from https://10.0.0.1:6443)');
  });

  it('caps the text of a network or TLS failure', () => {
    const cause = Object.assign(new Error(`Hostname/IP does not match certificate's altnames: ${'DNS:x,'.repeat(500)}`), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    const error = describeKubeFailure(new TypeError('fetch failed', { cause }), 'list nodes', 'https://10.0.0.1:6443', null);
    expect(error.kind).toBe('tls');
    expect(error.message.length).toBeLessThan(PEER_TEXT_MAX_CHARS + 100);
  });
});
