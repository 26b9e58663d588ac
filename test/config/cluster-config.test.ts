import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClustersFile } from '../../src/cli/read-clusters-file.ts';
import { CLUSTER_KEYS, clusterConfigOf } from '../../src/config/cluster-config.ts';
import { JUDGE_KEYS, REACH_KEYS, settingsOfScope } from '../../src/config/settings.ts';
import { ok, resolve } from '../cli/load-config-helpers.ts';

// One cluster's settings are how to reach it and how to judge it: a fleet's clusters carry nothing of the
// service (listener, token, log, shard), which is the process's once.

describe('one cluster’s settings', () => {
  it('are the reach and judge settings, the derived mode and history cap, and the deny list', () => {
    expect([...CLUSTER_KEYS].sort()).toEqual([...REACH_KEYS, ...JUDGE_KEYS, 'denyCidrs', 'mode', 'historyMaxBytes'].sort());
    const config = ok(resolve({ ETCD_PROBE_POLICY: 'strict', ETCD_PROBE_LISTEN: '127.0.0.1:9000' })).config;
    const cluster = clusterConfigOf(config);
    expect(Object.keys(cluster).sort()).toEqual([...CLUSTER_KEYS].sort());
    expect(cluster).toMatchObject({ policy: 'strict', mode: 'static', endpoints: ['http://127.0.0.1:2379'] });
    expect(Object.isFrozen(cluster)).toBe(true);
    for (const key of [...settingsOfScope('service').filter((k) => k !== 'denyCidrs'), ...settingsOfScope('fleet')]) expect(cluster).not.toHaveProperty(key);
  });

  it('are all a clusters file’s cluster carries: no listener, no shard', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cluster-config-'));
    try {
      const path = join(dir, 'clusters.yaml');
      writeFileSync(path, 'clusters:\n  - name: a\n    endpoints: http://10.0.0.1:2379\n    policy: strict\n');
      const result = readClustersFile(path, { env: { ETCD_PROBE_SHARD: '1/2' }, argv: [], now: new Date() });
      if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
      const [entry] = result.entries;
      expect(entry?.config).toMatchObject({ policy: 'strict', endpoints: ['http://10.0.0.1:2379'] });
      expect(entry?.config).not.toHaveProperty('listen');
      expect(entry?.config).not.toHaveProperty('shard');
      expect(entry?.config).not.toHaveProperty('authTokenFile');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
