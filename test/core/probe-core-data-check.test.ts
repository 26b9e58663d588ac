import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { buildProbeCore, DATA_CHECK_DEFAULT_MS } from '../../src/core/probe-core.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { round, three } from '../probe/observation-builders.ts';

function configWith(env: Record<string, string>) {
  const result = loadConfig({ env: { ETCD_PROBE_ENDPOINTS: 'http://10.0.0.1:2379', ...env }, argv: [], now: new Date() });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.config;
}

async function checkerOf(env: Record<string, string>, dataCheckDefaultMs?: number) {
  const source = scriptedSource(round(three()).endpoints);
  const core = await buildProbeCore({ config: configWith(env), tls: { ca: null, cert: null, key: null }, source, ...(dataCheckDefaultMs === undefined ? {} : { dataCheckDefaultMs }) });
  const on = core.dataChecker !== null;
  await core.close();
  return on;
}

describe('where the divergence check runs', () => {
  it.each([
    ['a single cluster by default (5m)', {}, DATA_CHECK_DEFAULT_MS, true],
    ['a single cluster with off', { ETCD_PROBE_DATA_CHECK_INTERVAL: 'off' }, DATA_CHECK_DEFAULT_MS, false],
    ['a fleet cluster by default (no default given: off)', {}, undefined, false],
    ['a fleet cluster with the interval set (fleet-wide or in the clusters file)', { ETCD_PROBE_DATA_CHECK_INTERVAL: '10m' }, undefined, true],
  ] as const)('%s', async (_name, env, fallback, expected) => {
    expect(await checkerOf(env, fallback)).toBe(expected);
  });
});
