import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { SETTINGS } from '../../src/config/settings.ts';
import { unknownVariables } from '../../src/config/unknown-variables.ts';

describe('unknownVariables', () => {
  it('finds nothing in an environment of settings and foreign variables', () => {
    const env = Object.fromEntries([...SETTINGS.map((s) => [s.env, 'x']), ['PATH', '/bin'], ['ETCDCTL_API', '3'], ['ETCD_PROBES', '1']]);
    expect(unknownVariables(env)).toEqual({ errors: [], warnings: [] });
  });

  it.each([
    ['ETCD_PROBE_ENDPOINT', 'ETCD_PROBE_ENDPOINTS'],
    ['ETCD_PROBE_TIMEOUTS', 'ETCD_PROBE_TIMEOUT'],
    ['ETCD_PROBE_LOGLEVEL', 'ETCD_PROBE_LOG_LEVEL'],
    ['ETCD_PROBE_CA_CERT', 'ETCD_PROBE_CACERT'],
    ['ETCD_PROBE_CACHETTL', 'ETCD_PROBE_CACHE_TTL'],
    ['ETCD_PROBE_MAX_RAFTGAP', 'ETCD_PROBE_MAX_RAFT_GAP'],
    ['ETCD_PROBE_POLCY', 'ETCD_PROBE_POLICY'],
    ['ETCD_PROBE_DISCOVERY', 'ETCD_PROBE_DISCOVER'],
  ])('treats %s as a typo of %s (an error)', (name, meant) => {
    const { errors, warnings } = unknownVariables({ [name]: 'x' });
    expect(warnings).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([`${name}: unknown setting (did you mean ${meant}?)`]);
    expect(errors[0]).toBeInstanceOf(ConfigError);
    expect(errors[0]?.source).toBe(name);
  });

  it.each(['ETCD_PROBE_FOO_BAR_BAZ', 'ETCD_PROBE_QUOTA', 'ETCD_PROBE_X'])('only warns about %s, far from any setting', (name) => {
    expect(unknownVariables({ [name]: 'x' })).toEqual({ errors: [], warnings: [`${name}: unknown setting, ignored`] });
  });

  it('draws the line at an edit distance of two', () => {
    // ETCD_PROBE_TIMEOUT plus two letters is still a typo; plus three is something else.
    expect(unknownVariables({ ETCD_PROBE_TIMEOUTXY: '1' }).errors).toHaveLength(1);
    expect(unknownVariables({ ETCD_PROBE_TIMEOUTXYZ: '1' }).errors).toHaveLength(0);
  });

  it.each([
    'ETCD_PROBE_SERVICE_HOST',
    'ETCD_PROBE_SERVICE_PORT',
    'ETCD_PROBE_SERVICE_PORT_HTTP',
    'ETCD_PROBE_PORT',
    'ETCD_PROBE_PORT_8080_TCP',
    'ETCD_PROBE_PORT_8080_TCP_ADDR',
    'ETCD_PROBE_PORT_8080_TCP_PROTO',
    'ETCD_PROBE_PORT_8080_TCP_PORT',
    'ETCD_PROBE_PORT_9090_UDP',
    'ETCD_PROBE_METRICS_SERVICE_HOST',
    'ETCD_PROBE_METRICS_PORT_9100_TCP_ADDR',
  ])('silently ignores the Kubernetes service-link variable %s', (name) => {
    expect(unknownVariables({ [name]: 'tcp://10.96.0.12:8080' })).toEqual({ errors: [], warnings: [] });
  });

  it('reports several names in sorted order', () => {
    const { errors, warnings } = unknownVariables({ ETCD_PROBE_ZZZ_UNKNOWN: '1', ETCD_PROBE_POLICYS: '1', ETCD_PROBE_AAA_UNKNOWN: '1', ETCD_PROBE_KEYS: '1' });
    expect(errors.map((e) => e.message)).toEqual([
      'ETCD_PROBE_KEYS: unknown setting (did you mean ETCD_PROBE_KEY?)',
      'ETCD_PROBE_POLICYS: unknown setting (did you mean ETCD_PROBE_POLICY?)',
    ]);
    expect(warnings).toEqual(['ETCD_PROBE_AAA_UNKNOWN: unknown setting, ignored', 'ETCD_PROBE_ZZZ_UNKNOWN: unknown setting, ignored']);
  });
});
