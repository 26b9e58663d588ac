import { describe, expect, it } from 'vitest';
import { ok, resolve } from '../cli/load-config-helpers.ts';

// What the process serves is decided once, from the settings, as a tagged union: nothing else asks.

const MANAGEMENT = { ETCD_PROBE_MANAGEMENT_KUBECONFIG: '/dev/null' };

describe('the deployment', () => {
  it('is one cluster by default, and in every single-cluster mode', () => {
    expect(ok(resolve()).deployment).toEqual({ kind: 'cluster' });
    const one = ok(resolve({ ETCD_PROBE_CAPI_CLUSTER: 'ns/prod', ...MANAGEMENT }));
    expect(one.deployment).toEqual({ kind: 'cluster' });
    expect(one.config).toMatchObject({ mode: 'capi', capiCluster: { namespace: 'ns', name: 'prod' } });
  });

  it('is a clusters-file fleet, naming the file', () => {
    expect(ok(resolve({ ETCD_PROBE_CLUSTERS_FILE: '/etc/etcd-probe/clusters.yaml' })).deployment).toEqual({ kind: 'clusters-file', file: '/etc/etcd-probe/clusters.yaml' });
  });

  it('is a Cluster API fleet, with its namespace and selector; its config names no Cluster and no Cluster API mode', () => {
    const all = ok(resolve({ ETCD_PROBE_CAPI_CLUSTER: '*', ...MANAGEMENT }));
    expect(all.deployment).toEqual({ kind: 'capi-fleet', namespace: null, selector: null });
    // The fleet target is the deployment's, never a config's: mode 'capi' always has one Cluster.
    expect(all.config).toMatchObject({ capiCluster: null, mode: 'static' });
    expect(ok(resolve({ ETCD_PROBE_CAPI_CLUSTER: 'team-a/*', ETCD_PROBE_CAPI_SELECTOR: 'env=prod', ...MANAGEMENT })).deployment).toEqual({ kind: 'capi-fleet', namespace: 'team-a', selector: 'env=prod' });
  });
});
