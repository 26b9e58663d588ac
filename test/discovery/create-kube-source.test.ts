import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { createKubeSource } from '../../src/discovery/create-kube-source.ts';
import { capiEntries } from '../../src/fleet/capi-fleet.ts';
import type { KubeConnection } from '../../src/kube/kube-connection.ts';
import { fixedTls } from '../../src/tls/tls-provider.ts';

// A Cluster API fleet's clusters as fleet/capi-fleet.ts makes them, whose management kubeconfig
// (/dev/null here) holds no cluster: a source made from it fails, one given the fleet's connection does not.
const entry = (() => {
  const r = loadConfig({ env: { ETCD_PROBE_CAPI_CLUSTER: '*', ETCD_PROBE_MANAGEMENT_KUBECONFIG: '/dev/null' }, argv: [], now: new Date() });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join());
  const [one] = capiEntries([{ namespace: 'ns', name: 'prod', paused: false, deleting: false, phase: 'Provisioned', controlPlaneReady: true, controlPlaneEndpoint: null }], r.config, null);
  if (!one) throw new Error('no entry');
  return one;
})();

describe('createKubeSource in Cluster API mode', () => {
  const inputs = { config: entry.config, tls: fixedTls(entry.tls), now: Date.now };

  it('makes its own management connection from ETCD_PROBE_MANAGEMENT_KUBECONFIG, and names the setting when that fails', () => {
    expect(() => createKubeSource(inputs)).toThrow(ConfigError);
    expect(() => createKubeSource(inputs)).toThrow(/ETCD_PROBE_MANAGEMENT_KUBECONFIG/);
  });

  it('uses the connection a fleet shares instead of making one per cluster', async () => {
    const shared = {} as KubeConnection; // never called: the source reads secrets only in a round
    const source = createKubeSource({ ...inputs, management: shared });
    expect(source.mode).toBe('capi');
    await source.close();
  });
});
