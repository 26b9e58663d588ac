import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { JUDGE_KEYS, REACH_KEYS, SETTINGS, settingsOfScope } from '../../src/config/settings.ts';
import { SCOPES } from '../../src/config/setting.ts';

describe('SETTINGS', () => {
  it('has one setting per Config field (mode and the history cap are derived), and the deployment\'s two', () => {
    const result = loadConfig({ env: {}, argv: [], now: new Date() });
    if (!result.ok) throw new Error('the defaults must resolve');
    expect(SETTINGS.map((s) => s.key).sort()).toEqual(Object.keys(result.config).filter((k) => k !== 'mode' && k !== 'historyMaxBytes').concat('capiSelector', 'clustersFile').sort());
  });

  it.each(SETTINGS.map((s) => [s.flag, s]))('names the variable of --%s after the flag', (_flag, s) => {
    expect(s.flag).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(s.env).toBe(`ETCD_PROBE_${s.flag.toUpperCase().replaceAll('-', '_')}`);
  });

  it('uses each variable, flag and key once', () => {
    for (const field of ['env', 'flag', 'key'] as const) {
      const values = SETTINGS.map((s) => s[field]);
      expect(new Set(values).size).toBe(values.length);
    }
  });

  it('has a default that its own parser accepts, or none', () => {
    for (const s of SETTINGS) {
      if (s.fallback !== null) expect(() => s.parse(s.fallback as string)).not.toThrow();
    }
    expect(SETTINGS.filter((s) => s.fallback === null).map((s) => s.key)).toEqual([
      'caFile',
      'certFile',
      'keyFile',
      'dataCheckIntervalMs',
      'kubeconfig',
      'connect',
      'tlsSecret',
      'capiCluster',
      'capiSelector',
      'managementKubeconfig',
      'clustersFile',
      'authTokenFile',
      'tlsCertFile',
      'tlsKeyFile',
      'tlsClientCaFile',
    ]);
  });

  it('bounds the durations as its help says', () => {
    const ttl = SETTINGS.find((s) => s.key === 'cacheTtlMs');
    const timeout = SETTINGS.find((s) => s.key === 'timeoutMs');
    expect(ttl?.parse('0s')).toBe(0);
    expect(ttl?.parse('1h')).toBe(3_600_000);
    expect(() => ttl?.parse('61m')).toThrow('61m is out of range (0s to 1h)');
    expect(timeout?.parse('10ms')).toBe(10);
    expect(() => timeout?.parse('9ms')).toThrow('9ms is out of range (10ms to 60s)');
  });

  it('gives every setting one of the scopes, and derives the per-cluster lists from them', () => {
    expect(SCOPES.flatMap(settingsOfScope).sort()).toEqual(SETTINGS.map((s) => s.key).sort());
    // What a clusters file's cluster names for itself...
    expect(REACH_KEYS).toEqual(['endpoints', 'caFile', 'certFile', 'keyFile', 'discover', 'kubeconfig', 'nodeSelector', 'connect', 'tlsSecret', 'capiCluster', 'managementKubeconfig']);
    // ...and what it may override of the process's way of judging: nothing of the service or the fleet.
    expect(JUDGE_KEYS).toContain('policy');
    expect(JUDGE_KEYS).toContain('dataCheckIntervalMs');
    expect(JUDGE_KEYS).not.toContain('listen');
    expect(settingsOfScope('fleet')).toEqual(expect.arrayContaining(['clustersFile', 'shard', 'capiSelector']));
    expect(settingsOfScope('service')).toEqual(expect.arrayContaining(['listen', 'logLevel', 'authTokenFile', 'denyCidrs']));
  });
});
