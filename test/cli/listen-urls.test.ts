import { describe, expect, it } from 'vitest';
import { listenUrls } from '../../src/cli/listen-urls.ts';

describe('listenUrls', () => {
  it('gives each bound address as a URL, IPv6 in brackets, with the scheme the listener serves', () => {
    expect(listenUrls([{ address: '127.0.0.1', family: 'IPv4', port: 8080 }], false)).toEqual(['http://127.0.0.1:8080']);
    expect(listenUrls([{ address: '::1', family: 'IPv6', port: 8443 }, { address: '0.0.0.0', family: 'IPv4', port: 8443 }], true)).toEqual([
      'https://[::1]:8443',
      'https://0.0.0.0:8443',
    ]);
  });
});
