import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClustersFile } from '../../src/cli/read-clusters-file.ts';
import { HISTORY_MAX_BYTES } from '../../src/config/config.ts';
import { REMOVED_SETTINGS } from '../../src/config/removed-settings.ts';
import { SETTINGS } from '../../src/config/settings.ts';
import { IDLE_CLOSE_MS } from '../../src/fleet/fleet.ts';
import { FLAP_CHANGES_MAX, FLAP_WINDOW_MS, LEADER_CHANGES_MAX, LEADER_CHANGES_WINDOW_MS, STALL_ROUNDS } from '../../src/probe/history/history-checks.ts';
import { resolve } from '../cli/load-config-helpers.ts';

// Settings that became constants: a user who still sets one hears, at start, that it is gone and what
// replaced it, whether it came as a variable, a flag or a key of the clusters file.

const REMOVED = REMOVED_SETTINGS.map((r) => [r.variable, r] as const);

function errorsOf(result: ReturnType<typeof resolve>): string[] {
  return result.ok ? [] : result.errors.map((e) => e.message);
}

describe('removed settings', () => {
  it('are the seven knobs turned constants, none of them a setting any more', () => {
    expect(REMOVED_SETTINGS.map((r) => r.variable)).toEqual([
      'ETCD_PROBE_LEADER_CHANGES',
      'ETCD_PROBE_LEADER_CHANGES_WINDOW',
      'ETCD_PROBE_FLAP_CHANGES',
      'ETCD_PROBE_FLAP_WINDOW',
      'ETCD_PROBE_STALL_ROUNDS',
      'ETCD_PROBE_HISTORY_MAX_BYTES',
      'ETCD_PROBE_IDLE_CLOSE',
    ]);
    const known = new Set(SETTINGS.flatMap((s) => [s.env, s.flag]));
    for (const r of REMOVED_SETTINGS) {
      expect(known.has(r.variable)).toBe(false);
      expect(known.has(r.flag)).toBe(false);
      // The variable is the flag in capitals, as for every setting.
      expect(r.variable).toBe(`ETCD_PROBE_${r.flag.toUpperCase().replaceAll('-', '_')}`);
    }
  });

  it('name the values of the constants that replaced them', () => {
    const text = (env: string) => REMOVED_SETTINGS.find((r) => r.variable === env)?.replacement ?? '';
    expect(text('ETCD_PROBE_LEADER_CHANGES')).toContain(`${LEADER_CHANGES_MAX} leader elections in ${LEADER_CHANGES_WINDOW_MS / 60_000}m`);
    expect(text('ETCD_PROBE_FLAP_WINDOW')).toContain(`${FLAP_CHANGES_MAX} state changes in ${FLAP_WINDOW_MS / 60_000}m`);
    expect(text('ETCD_PROBE_STALL_ROUNDS')).toContain(`${STALL_ROUNDS} rounds`);
    expect(text('ETCD_PROBE_HISTORY_MAX_BYTES')).toContain(`${HISTORY_MAX_BYTES / 2 ** 20}MiB`);
    expect(text('ETCD_PROBE_IDLE_CLOSE')).toContain(`${IDLE_CLOSE_MS / 60_000}m`);
  });

  it.each(REMOVED)('stop the start when %s is still set, naming what replaced it', (env, r) => {
    const result = resolve({ [env]: '5' });
    expect(result.ok).toBe(false);
    expect(errorsOf(result)).toEqual([`${env}: was removed: ${r.replacement}`]);
  });

  it.each(REMOVED)('stop the start when %s is given as its old flag', (_env, r) => {
    expect(errorsOf(resolve({}, [`--${r.flag}=5`]))).toEqual([`--${r.flag}: was removed: ${r.replacement}`]);
  });

  it('say the same of a removed key in a clusters file, naming the cluster', () => {
    const dir = mkdtempSync(join(tmpdir(), 'removed-'));
    try {
      const withKeys = REMOVED_SETTINGS.filter((r) => r.fileKey !== null);
      expect(withKeys).toHaveLength(6);
      const keys = withKeys.map((r) => `    ${r.fileKey}: 5`).join('\n');
      const path = join(dir, 'clusters.yaml');
      writeFileSync(path, `clusters:\n  - name: a\n    endpoints: http://10.0.0.1:2379\n${keys}\n`);
      const result = readClustersFile(path, { env: {}, argv: [], now: new Date() });
      expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual(withKeys.map((r) => `ETCD_PROBE_CLUSTERS_FILE: clusters[0] (a): ${r.fileKey}: was removed: ${r.replacement}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
