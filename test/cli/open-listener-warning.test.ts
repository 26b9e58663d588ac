import { describe, expect, it } from 'vitest';
import { openListenerWarning } from '../../src/cli/serve.ts';

// Issue 25, a low of 7: the binary defaults to no token on 0.0.0.0, and said nothing about it.
describe('the warning of a service that answers everyone', () => {
  it('is given without a token on a listener that is not loopback-only, naming the address and its setting', () => {
    const warning = openListenerWarning({ listen: { host: '0.0.0.0', port: 8080 } }, false, 'ETCD_PROBE_LISTEN');
    expect(warning).toMatch(/^every route is open to whoever reaches 0\.0\.0\.0:8080 \(ETCD_PROBE_LISTEN\): no ETCD_PROBE_AUTH_TOKEN_FILE is set/);
    expect(openListenerWarning({ listen: { host: '10.1.2.3', port: 9000 } }, false, '--listen')).toContain('10.1.2.3:9000 (--listen)');
  });

  it('is not given with a token, or on a loopback listener', () => {
    expect(openListenerWarning({ listen: { host: '0.0.0.0', port: 8080 } }, true, 'ETCD_PROBE_LISTEN')).toBeNull();
    for (const host of ['127.0.0.1', '::1', 'localhost']) expect(openListenerWarning({ listen: { host, port: 8080 } }, false, 'ETCD_PROBE_LISTEN'), host).toBeNull();
  });
});
