import { describe, expect, it } from 'vitest';
import { normalizeEndpoint, preferredClientUrl } from '../../src/probe/endpoint-url.ts';

describe('normalizeEndpoint', () => {
  it.each([
    ['http://127.0.0.1:2379', 'http://127.0.0.1:2379'],
    ['HTTPS://Etcd-0.Example.COM:2379/', 'https://etcd-0.example.com:2379'],
    ['http://10.0.0.1:2379/v3/kv?x=1#y', 'http://10.0.0.1:2379'],
    ['http://[::1]:2379', 'http://[::1]:2379'],
    ['http://[0:0:0:0:0:0:0:1]:2379', 'http://[::1]:2379'],
    ['http://10.0.0.1:80', 'http://10.0.0.1'],
    ['Not A URL', 'not a url'],
  ])('normalises %j to %j', (url, normal) => {
    expect(normalizeEndpoint(url)).toBe(normal);
  });

  it('makes a configured endpoint equal to the same advertised URL', () => {
    expect(normalizeEndpoint('https://ETCD-0:2379')).toBe(normalizeEndpoint('https://etcd-0:2379/'));
    expect(normalizeEndpoint('https://etcd-0:2379')).not.toBe(normalizeEndpoint('http://etcd-0:2379'));
  });

  it('answers the same for a URL asked again, also after 20,000 other URLs went through its bounded memory', () => {
    const first = normalizeEndpoint('HTTPS://Etcd-9:2379/x');
    for (let i = 0; i < 20_000; i++) expect(normalizeEndpoint(`https://Peer-${i}:2379/`)).toBe(`https://peer-${i}:2379`);
    expect(normalizeEndpoint('HTTPS://Etcd-9:2379/x')).toBe(first);
    expect(first).toBe('https://etcd-9:2379');
  });
});

describe('preferredClientUrl', () => {
  it('prefers the first URL that is not loopback', () => {
    expect(preferredClientUrl(['http://127.0.0.1:2379', 'http://localhost:2379', 'http://[::1]:2379', 'https://10.0.0.5:2379', 'https://10.0.0.6:2379'])).toBe(
      'https://10.0.0.5:2379',
    );
  });

  it.each(['http://127.0.0.1:2379', 'http://127.1.2.3:2379', 'http://localhost:2379', 'http://LOCALHOST:2379', 'http://[::1]:2379'])(
    'treats %j as loopback',
    (loopback) => {
      expect(preferredClientUrl([loopback, 'https://etcd-0.etcd:2379'])).toBe('https://etcd-0.etcd:2379');
    },
  );

  it('takes the first URL when all are loopback', () => {
    expect(preferredClientUrl(['http://localhost:2379', 'http://127.0.0.1:2379'])).toBe('http://localhost:2379');
  });

  it('keeps a single URL', () => {
    expect(preferredClientUrl(['https://10.0.0.5:2379'])).toBe('https://10.0.0.5:2379');
  });

  it('returns null for a member without client URLs (not started yet)', () => {
    expect(preferredClientUrl([])).toBeNull();
  });
});
