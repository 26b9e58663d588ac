import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileKeyOf, readClustersFile } from '../../src/cli/read-clusters-file.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'clusters-file-'));
  writeFileSync(join(dir, 'ca.pem'), 'not a certificate');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function read(text: string, env: Record<string, string> = {}, argv: string[] = []) {
  const path = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, text);
  return readClustersFile(path, { env, argv, now: new Date() });
}

function messages(result: ReturnType<typeof read>): string[] {
  return result.ok ? [] : result.errors.map((e) => e.message);
}

describe('the clusters file', () => {
  it('names keys as the variables without their prefix, in camelCase', () => {
    expect(fileKeyOf('caFile')).toBe('cacert');
    expect(fileKeyOf('tlsSecret')).toBe('tlsSecret');
    expect(fileKeyOf('capiCluster')).toBe('capiCluster');
    expect(fileKeyOf('cacheTtlMs')).toBe('cacheTtl');
    expect(fileKeyOf('quotaBytes')).toBe('quotaBytes');
  });

  it('turns the divergence check on for one cluster of a fleet (dataCheckInterval), leaving the others unset (off in a fleet)', () => {
    const result = read('clusters:\n  - name: a\n    endpoints: http://10.0.0.1:2379\n    dataCheckInterval: 10m\n    dataCheckTimeout: 2m\n  - name: b\n    endpoints: http://10.0.1.1:2379\n', {}, []);
    if (!result.ok) throw new Error(messages(result).join('\n'));
    const [a, b] = result.entries;
    expect(a?.config).toMatchObject({ dataCheckIntervalMs: 600_000, dataCheckTimeoutMs: 120_000 });
    expect(b?.config).toMatchObject({ dataCheckIntervalMs: null, dataCheckTimeoutMs: 60_000 });
  });

  it('reads each cluster with its own settings over the overrides the process was given', () => {
    const result = read(
      'clusters:\n  - name: a\n    endpoints: [http://10.0.0.1:2379, http://10.0.0.2:2379]\n  - name: b\n    endpoints: http://10.0.1.1:2379\n    policy: strict\n    timeout: 1s\n',
      { ETCD_PROBE_POLICY: 'quorum', ETCD_PROBE_QUOTA_BYTES: '4GiB', ETCD_PROBE_ENDPOINTS: 'http://ignored:2379' },
      ['--timeout=3s'],
    );
    if (!result.ok) throw new Error(messages(result).join('\n'));
    const [a, b] = result.entries;
    expect(a?.config).toMatchObject({ endpoints: ['http://10.0.0.1:2379', 'http://10.0.0.2:2379'], policy: 'quorum', quotaBytes: 4 * 2 ** 30, timeoutMs: 3000, mode: 'static' });
    expect(b?.config).toMatchObject({ endpoints: ['http://10.0.1.1:2379'], policy: 'strict', timeoutMs: 1000 });
  });

  it('reads relative file paths from the file\'s own folder', () => {
    const result = read('clusters:\n  - name: tls\n    endpoints: [https://10.0.0.1:2379]\n    cacert: ca.pem\n');
    // The CA is read (and refused: it holds no certificate), so the path was resolved against the folder.
    expect(messages(result).join('\n')).toContain(`clusters[0] (tls): cacert`);
    expect(messages(result).join('\n')).toContain(join(dir, 'ca.pem'));
  });

  it('reports every problem at once, naming the cluster and the key, and never quoting a value', () => {
    const result = read(
      [
        'clusters:',
        '  - name: ok',
        '    endpoints: [http://10.0.0.1:2379]',
        '  - name: Bad_Name',
        '  - name: typo',
        '    endpoints: [http://10.0.0.1:2379]',
        '    polcy: strict',
        '  - name: ok',
        '    endpoints: [http://10.0.0.1:2379]',
        '  - name: nothing',
        '  - name: fleet',
        "    capiCluster: '*'",
        '  - name: badtimeout',
        '    endpoints: [http://10.0.0.1:2379]',
        '    timeout: soon',
        '  - name: listener',
        '    endpoints: [http://10.0.0.1:2379]',
        "    listen: '0.0.0.0:1'",
      ].join('\n'),
    );
    expect(messages(result)).toEqual([
      'ETCD_PROBE_CLUSTERS_FILE: clusters[1]: name: must be a name of lowercase letters, digits, "-" and "." (at most 63)',
      expect.stringMatching(/^ETCD_PROBE_CLUSTERS_FILE: clusters\[2\] \(typo\): "polcy": is not a per-cluster setting; these are: endpoints, cacert, cert, key, discover, kubeconfig/),
      'ETCD_PROBE_CLUSTERS_FILE: clusters[3] (ok): name: is taken by an earlier cluster',
      'ETCD_PROBE_CLUSTERS_FILE: clusters[4] (nothing): needs one of endpoints, kubeconfig or capiCluster',
      'ETCD_PROBE_CLUSTERS_FILE: clusters[5] (fleet): capiCluster: names one Cluster (namespace/name) in a clusters file; for a fleet of Clusters set ETCD_PROBE_CAPI_CLUSTER=* instead',
      "ETCD_PROBE_CLUSTERS_FILE: clusters[6] (badtimeout): timeout: 'soon' is not a duration (write it with a unit, e.g. 5s or 500ms)",
      expect.stringMatching(/^ETCD_PROBE_CLUSTERS_FILE: clusters\[7\] \(listener\): "listen": is not a per-cluster setting/),
    ]);
  });

  it('refuses a file that is missing, not YAML, or not a list of clusters', () => {
    expect(messages(readClustersFile(join(dir, 'nope.yaml'), { env: {}, argv: [], now: new Date() }))).toEqual([`ETCD_PROBE_CLUSTERS_FILE: cannot read ${join(dir, 'nope.yaml')}: no such file`]);
    expect(messages(read('clusters: [\n'))[0]).toMatch(/is not valid YAML at line \d+, column \d+/);
    expect(messages(read('clusters: []\n'))[0]).toMatch(/must hold "clusters:", a list of at least one cluster$/);
    expect(messages(read('clusters:\n  - name: a\n    endpoints: [http://10.0.0.1:2379]\nextra: 1\n'))[0]).toMatch(/unknown top-level key\(s\) "extra"; only "clusters"$/);
  });
});
