import { describe, expect, it } from 'vitest';
import { classifyClientError } from '../../src/http/client-error.ts';

function parserError(code: string, rawPacket?: string): Error & { code: string; rawPacket?: Buffer } {
  return Object.assign(new Error(code), { code, ...(rawPacket === undefined ? {} : { rawPacket: Buffer.from(rawPacket, 'latin1') }) });
}

describe('classifyClientError', () => {
  it('tells a long request line (414) from long headers (431)', () => {
    expect(classifyClientError(parserError('HPE_HEADER_OVERFLOW', `GET /healthz/etcd?${'a'.repeat(9000)}`))[0]).toBe('URI_TOO_LONG');
    expect(classifyClientError(parserError('HPE_HEADER_OVERFLOW', `GET /${'a'.repeat(9000)} HTTP/1.1\r\nHost: x\r\n`))[0]).toBe('URI_TOO_LONG');
    expect(classifyClientError(parserError('HPE_HEADER_OVERFLOW', `GET /livez HTTP/1.1\r\nX-Filler: ${'a'.repeat(9000)}`))[0]).toBe('HEADERS_TOO_LARGE');
    // A later packet of a long request (it does not start one): the headers are as likely, so 431.
    expect(classifyClientError(parserError('HPE_HEADER_OVERFLOW', 'a'.repeat(9000)))[0]).toBe('HEADERS_TOO_LARGE');
    expect(classifyClientError(parserError('HPE_HEADER_OVERFLOW'))[0]).toBe('HEADERS_TOO_LARGE');
  });

  it('answers timeouts with 408 and other parser errors with 400 naming only the parser code', () => {
    expect(classifyClientError(parserError('ERR_HTTP_REQUEST_TIMEOUT'))).toEqual(['REQUEST_TIMEOUT', 'the request did not arrive in time']);
    expect(classifyClientError(parserError('HPE_INVALID_METHOD', 'B<script> / HTTP/1.1'))).toEqual(['BAD_REQUEST', 'the request is not valid HTTP/1.1 (HPE_INVALID_METHOD)']);
    expect(classifyClientError(Object.assign(new Error('x'), { code: 'SOMETHING <b>' }))).toEqual(['BAD_REQUEST', 'the request is not valid HTTP/1.1']);
  });
});
