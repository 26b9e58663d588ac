import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.ts';
import type { ConfigInput, ConfigResult } from '../../src/cli/load-config.ts';
import { resolveSettings, sourceOf } from '../../src/config/resolve-config.ts';
import { SETTINGS } from '../../src/config/settings.ts';
import { errorsOf, ok, resolve as resolveWith } from '../cli/load-config-helpers.ts';

const NOW = new Date();

function resolve(env: ConfigInput['env'] = {}, argv: readonly string[] = [], now = NOW): ConfigResult {
  return resolveWith(env, argv, now);
}

describe('resolveConfig: defaults', () => {
  it('fills every field when the environment is empty', () => {
    const result = ok(resolve());
    expect(result.config).toEqual({
      endpoints: ['http://127.0.0.1:2379'],
      caFile: null,
      certFile: null,
      keyFile: null,
      listen: { host: '0.0.0.0', port: 8080 },
      cacheTtlMs: 5000,
      timeoutMs: 2000,
      policy: 'quorum',
      discover: true,
      quotaBytes: 2 * 2 ** 30,
      maxRaftGap: 1000,
      logLevel: 'info',
      mode: 'static',
      kubeconfig: null,
      nodeSelector: 'node-role.kubernetes.io/control-plane',
      connect: null,
      tlsSecret: null,
      capiCluster: null,
      managementKubeconfig: null,
      nodeGraceMs: 120_000,
      electionGraceMs: 10_000,
      historyWindowMs: 3_600_000,
      historyMaxBytes: 16 * 2 ** 20,
      dataCheckIntervalMs: null,
      dataCheckTimeoutMs: 60_000,
      denyCidrs: ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128', '169.254.0.0/16', 'fe80::/10'],
      shard: { index: 0, count: 1 },
      fleetRefreshMs: 30_000,
      maxRoundsInFlight: 16,
      holdConnections: false,
      fleetMaxClusters: 1000,
      maxMembers: 16,
      fleetMaxClustersPerNamespace: 250,
      fleetHistoryMaxBytes: 256 * 2 ** 20,
      authTokenFile: null,
      authRoutes: ['/members', '/alarms', '/history', '/disruption', '/metrics', '/', '/status/fragment', '/clusters'],
      tlsCertFile: null,
      tlsKeyFile: null,
      tlsClientCaFile: null,
      maxConnections: 1024,
      maxConnectionsPerClient: 64,
      shutdownDelayMs: 0,
      quotaEtaThresholdMs: 86_400_000,
      quotaEtaWindowMs: 21_600_000,
    } satisfies Config);
    expect(result.sources).toEqual({});
    expect(result.warnings).toEqual([]);
    expect(result.help).toBe(false);
    expect(result.tls).toEqual({ ca: null, cert: null, key: null });
    expect(result.tlsFiles).toEqual({
      ca: { path: null, source: 'ETCD_PROBE_CACERT' },
      cert: { path: null, source: 'ETCD_PROBE_CERT' },
      key: { path: null, source: 'ETCD_PROBE_KEY' },
    });
    expect(result.listenerTls).toBeNull();
    expect(result.auth).toBeNull();
  });

  it('ignores variables outside its prefix', () => {
    const result = ok(resolve({ PATH: '/usr/bin', ETCDCTL_ENDPOINTS: 'http://10.0.0.1:2379', HOME: '/root' }));
    expect(result.config.endpoints).toEqual(['http://127.0.0.1:2379']);
    expect(result.warnings).toEqual([]);
  });

  it('freezes the config and its endpoint list', () => {
    const { config } = ok(resolve({ ETCD_PROBE_ENDPOINTS: 'http://10.0.0.1:2379' }));
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.endpoints)).toBe(true);
    expect(() => {
      (config as { timeoutMs: number }).timeoutMs = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.endpoints as string[]).push('http://evil:2379');
    }).toThrow(TypeError);
    expect(config.timeoutMs).toBe(2000);
    expect(config.endpoints).toEqual(['http://10.0.0.1:2379']);
  });
});

describe('resolveConfig: environment and flags', () => {
  it('reads every setting from its variable and records the source', () => {
    const result = ok(
      resolve({
        ETCD_PROBE_ENDPOINTS: 'https://10.0.0.1:2379, https://10.0.0.2:2379',
        ETCD_PROBE_LISTEN: '127.0.0.1:9000',
        ETCD_PROBE_CACHE_TTL: '0s',
        ETCD_PROBE_TIMEOUT: '1m',
        ETCD_PROBE_POLICY: 'strict',
        ETCD_PROBE_DISCOVER: 'false',
        ETCD_PROBE_QUOTA_BYTES: '8Gi',
        ETCD_PROBE_MAX_RAFT_GAP: '50',
        ETCD_PROBE_LOG_LEVEL: 'debug',
      }),
    );
    expect(result.config).toMatchObject({
      endpoints: ['https://10.0.0.1:2379', 'https://10.0.0.2:2379'],
      listen: { host: '127.0.0.1', port: 9000 },
      cacheTtlMs: 0,
      timeoutMs: 60_000,
      policy: 'strict',
      discover: false,
      quotaBytes: 8 * 2 ** 30,
      maxRaftGap: 50,
      logLevel: 'debug',
    });
    expect(result.sources).toEqual({
      endpoints: 'ETCD_PROBE_ENDPOINTS',
      listen: 'ETCD_PROBE_LISTEN',
      cacheTtlMs: 'ETCD_PROBE_CACHE_TTL',
      timeoutMs: 'ETCD_PROBE_TIMEOUT',
      policy: 'ETCD_PROBE_POLICY',
      discover: 'ETCD_PROBE_DISCOVER',
      quotaBytes: 'ETCD_PROBE_QUOTA_BYTES',
      maxRaftGap: 'ETCD_PROBE_MAX_RAFT_GAP',
      logLevel: 'ETCD_PROBE_LOG_LEVEL',
    });
  });

  it('lets a flag win over the variable', () => {
    const result = ok(resolve({ ETCD_PROBE_TIMEOUT: '5s', ETCD_PROBE_POLICY: 'strict' }, ['--timeout=3s']));
    expect(result.config.timeoutMs).toBe(3000);
    expect(result.config.policy).toBe('strict');
    expect(result.sources.timeoutMs).toBe('--timeout');
    expect(result.sources.policy).toBe('ETCD_PROBE_POLICY');
  });

  it('accepts a flag value as the next argument', () => {
    const result = ok(resolve({}, ['--cache-ttl', '250ms', '--max-raft-gap', '7']));
    expect(result.config.cacheTtlMs).toBe(250);
    expect(result.config.maxRaftGap).toBe(7);
  });

  it('names the variable when the variable is bad', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_TIMEOUT: '5' }))).toEqual([
      "ETCD_PROBE_TIMEOUT: '5' is not a duration (write it with a unit, e.g. 5s or 500ms)",
    ]);
  });

  it('names the flag when the flag is bad, even when the variable is good', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_TIMEOUT: '5s' }, ['--timeout=5']))).toEqual([
      "--timeout: '5' is not a duration (write it with a unit, e.g. 5s or 500ms)",
    ]);
  });

  it('keeps the source and the problem apart on the error', () => {
    const result = resolve({ ETCD_PROBE_TIMEOUT: '90s' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.source).toBe('ETCD_PROBE_TIMEOUT');
    expect(result.errors[0]?.problem).toBe('90s is out of range (10ms to 60s)');
  });

  it.each(['', '   '])('treats an empty variable (%j) as unset', (value) => {
    const result = ok(resolve({ ETCD_PROBE_TIMEOUT: value, ETCD_PROBE_ENDPOINTS: value, ETCD_PROBE_CERT: value }));
    expect(result.config.timeoutMs).toBe(2000);
    expect(result.config.endpoints).toEqual(['http://127.0.0.1:2379']);
    expect(result.config.certFile).toBeNull();
    expect(result.sources).toEqual({});
  });

  it('does not treat an empty flag as unset', () => {
    expect(errorsOf(resolve({}, ['--timeout=']))).toEqual([
      "--timeout: '' is not a duration (write it with a unit, e.g. 5s or 500ms)",
    ]);
  });

  it('reports every bad setting at once, in settings order after unknown variables', () => {
    const result = resolve(
      { ETCD_PROBE_TIMEOUT: 'abc', ETCD_PROBE_POLICY: 'lenient', ETCD_PROBE_ENDPOINT: 'http://10.0.0.1:2379' },
      ['--listen=nope', '--discover=maybe'],
    );
    expect(errorsOf(result)).toEqual([
      'ETCD_PROBE_ENDPOINT: unknown setting (did you mean ETCD_PROBE_ENDPOINTS?)',
      "--listen: 'nope' is not host:port (e.g. 0.0.0.0:8080 or :8080)",
      "ETCD_PROBE_TIMEOUT: 'abc' is not a duration (write it with a unit, e.g. 5s or 500ms)",
      "ETCD_PROBE_POLICY: 'lenient' is not one of quorum, strict",
      "--discover: 'maybe' is not a boolean (use true or false)",
    ]);
  });

  it.each([['--help'], ['-h']])('reports %s as help', (flag) => {
    expect(ok(resolve({}, [flag])).help).toBe(true);
  });
});

describe('resolveConfig: command-line mistakes', () => {
  it('rejects an unknown flag, naming it, with the flag it is a near miss of, as for variables (issue 26)', () => {
    expect(errorsOf(resolve({}, ['--endpoint=http://10.0.0.1:2379']))).toEqual(['--endpoint: unknown flag (did you mean --endpoints?)']);
    expect(errorsOf(resolve({}, ['--timout=2s']))).toEqual(['--timout: unknown flag (did you mean --timeout?)']);
    expect(errorsOf(resolve({}, ['--wholly-unknown=1']))).toEqual(['--wholly-unknown: unknown flag (etcd-probe --help lists them)']);
  });

  it('rejects an unknown short flag', () => {
    expect(errorsOf(resolve({}, ['-x']))).toEqual(['-x: unknown flag (etcd-probe --help lists them)']);
  });

  it('rejects a flag without a value', () => {
    expect(errorsOf(resolve({}, ['--timeout']))).toEqual(['--timeout: needs a value, e.g. --timeout=2s']);
  });

  it('rejects a flag followed by another flag instead of its value', () => {
    expect(errorsOf(resolve({}, ['--timeout', '--policy=strict']))).toEqual(['--timeout: needs a value, e.g. --timeout=2s']);
  });

  it('rejects a positional argument, naming it', () => {
    expect(errorsOf(resolve({}, ['http://10.0.0.1:2379']))).toEqual([
      'http://10.0.0.1:2379: unexpected argument; settings are flags like --endpoints=...',
    ]);
  });

  it('still reports bad variables alongside a bad command line', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_POLICY: 'lenient' }, ['--nope']))).toEqual([
      '--nope: unknown flag (etcd-probe --help lists them)',
      "ETCD_PROBE_POLICY: 'lenient' is not one of quorum, strict",
    ]);
  });
});

describe('resolveConfig: unknown ETCD_PROBE_ variables', () => {
  it('rejects a near miss of a setting, suggesting the setting', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_ENDPOINT: 'http://10.0.0.1:2379' }))).toEqual([
      'ETCD_PROBE_ENDPOINT: unknown setting (did you mean ETCD_PROBE_ENDPOINTS?)',
    ]);
  });

  it('only warns about an unrelated name', () => {
    const result = ok(resolve({ ETCD_PROBE_FOO_BAR_BAZ: '1' }));
    expect(result.warnings).toEqual(['ETCD_PROBE_FOO_BAR_BAZ: unknown setting, ignored']);
  });

  it('silently ignores the variables Kubernetes injects for a Service named etcd-probe', () => {
    const result = ok(
      resolve({
        ETCD_PROBE_SERVICE_HOST: '10.96.0.12',
        ETCD_PROBE_SERVICE_PORT: '8080',
        ETCD_PROBE_SERVICE_PORT_HTTP: '8080',
        ETCD_PROBE_PORT: 'tcp://10.96.0.12:8080',
        ETCD_PROBE_PORT_8080_TCP: 'tcp://10.96.0.12:8080',
        ETCD_PROBE_PORT_8080_TCP_ADDR: '10.96.0.12',
        ETCD_PROBE_PORT_8080_TCP_PROTO: 'tcp',
        ETCD_PROBE_PORT_8080_TCP_PORT: '8080',
      }),
    );
    expect(result.warnings).toEqual([]);
    expect(result.config.listen).toEqual({ host: '0.0.0.0', port: 8080 });
  });
});

describe('sourceOf', () => {
  it('returns the recorded source, else the variable of the setting', () => {
    expect(sourceOf('certFile', { certFile: '--cert' })).toBe('--cert');
    expect(sourceOf('certFile', {})).toBe('ETCD_PROBE_CERT');
    expect(sourceOf('cacheTtlMs', {})).toBe('ETCD_PROBE_CACHE_TTL');
  });
});

describe('resolveSettings', () => {
  it('decodes every setting, each under its own key', () => {
    expect(Object.keys(resolveSettings({ env: {}, argv: [] }).settings)).toEqual(SETTINGS.map((s) => s.key));
  });

  it('holds the default where the text is bad, so that the later checks still run', () => {
    const { settings, errors } = resolveSettings({ env: { ETCD_PROBE_TIMEOUT: 'soon', ETCD_PROBE_CAPI_CLUSTER: 'nope' }, argv: [] });
    expect(errors.map((e) => e.source)).toEqual(['ETCD_PROBE_TIMEOUT', 'ETCD_PROBE_CAPI_CLUSTER']);
    expect(settings.timeoutMs).toBe(2000);
    expect(settings.capiCluster).toBeNull();
  });
});
