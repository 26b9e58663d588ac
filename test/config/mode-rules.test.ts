import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCa } from '../fixtures/certs.ts';
import { errorsOf, ok, resolve } from './resolve-helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-mode-'));
const KUBECONFIG = join(dir, 'kubeconfig');
writeFileSync(KUBECONFIG, 'apiVersion: v1\nkind: Config\n');

describe('modes', () => {
  it('is static by default', () => {
    expect(ok(resolve()).config.mode).toBe('static');
  });

  it('is kubeconfig with ETCD_PROBE_KUBECONFIG, with the control-plane selector and no connect choice by default', () => {
    const { config } = ok(resolve({ ETCD_PROBE_KUBECONFIG: KUBECONFIG }));
    expect(config.mode).toBe('kubeconfig');
    expect(config.kubeconfig).toEqual({ kind: 'file', path: KUBECONFIG });
    expect(config.nodeSelector).toBe('node-role.kubernetes.io/control-plane');
    expect(config.connect).toBeNull();
    expect(ok(resolve({ ETCD_PROBE_KUBECONFIG: 'in-cluster' })).config.kubeconfig).toEqual({ kind: 'in-cluster' });
  });

  it('is capi with ETCD_PROBE_CAPI_CLUSTER', () => {
    const { config } = ok(resolve({ ETCD_PROBE_CAPI_CLUSTER: 'default/workload-1' }));
    expect(config.mode).toBe('capi');
    expect(config.capiCluster).toEqual({ namespace: 'default', name: 'workload-1' });
    expect(config.managementKubeconfig).toBeNull();
  });

  it.each([
    [{ ETCD_PROBE_KUBECONFIG: '/nowhere/kubeconfig' }, 'ETCD_PROBE_KUBECONFIG: cannot read /nowhere/kubeconfig: no such file'],
    [{ ETCD_PROBE_CAPI_CLUSTER: 'workload' }, "ETCD_PROBE_CAPI_CLUSTER: 'workload' is not namespace/name"],
    [{ ETCD_PROBE_CAPI_CLUSTER: 'Default/w' }, "ETCD_PROBE_CAPI_CLUSTER: 'Default' is not a valid namespace (lowercase letters, digits and '-')"],
    [{ ETCD_PROBE_KUBECONFIG: KUBECONFIG, ETCD_PROBE_TLS_SECRET: 'kube-system/' }, "ETCD_PROBE_TLS_SECRET: '' is not a valid object name (lowercase letters, digits, '-' and '.')"],
    [{ ETCD_PROBE_KUBECONFIG: KUBECONFIG, ETCD_PROBE_CONNECT: 'tunnel' }, "ETCD_PROBE_CONNECT: 'tunnel' is not one of port-forward, direct"],
    [{ ETCD_PROBE_KUBECONFIG: KUBECONFIG, ETCD_PROBE_NODE_SELECTOR: 'a b' }, "ETCD_PROBE_NODE_SELECTOR: 'a b' is not a label selector (e.g. node-role.kubernetes.io/control-plane)"],
    [
      { ETCD_PROBE_KUBECONFIG: KUBECONFIG, ETCD_PROBE_CAPI_CLUSTER: 'default/w' },
      "ETCD_PROBE_KUBECONFIG: cannot be combined with ETCD_PROBE_CAPI_CLUSTER: Cluster API mode reads the workload kubeconfig from the cluster's secret",
    ],
    [
      { ETCD_PROBE_KUBECONFIG: KUBECONFIG, ETCD_PROBE_ENDPOINTS: 'https://10.0.0.1:2379' },
      'ETCD_PROBE_ENDPOINTS: is for static endpoints; in kubeconfig mode members are found through the Kubernetes API',
    ],
    [{ ETCD_PROBE_CONNECT: 'direct' }, 'ETCD_PROBE_CONNECT: applies only with ETCD_PROBE_KUBECONFIG or ETCD_PROBE_CAPI_CLUSTER'],
    [{ ETCD_PROBE_KUBECONFIG: KUBECONFIG, ETCD_PROBE_MANAGEMENT_KUBECONFIG: KUBECONFIG }, 'ETCD_PROBE_MANAGEMENT_KUBECONFIG: applies only with ETCD_PROBE_CAPI_CLUSTER'],
    [{ ETCD_PROBE_CAPI_CLUSTER: 'default/w', ETCD_PROBE_CONNECT: 'direct' }, 'ETCD_PROBE_CONNECT: Cluster API mode always reaches members by port-forward'],
  ])('rejects %j', (env, message) => {
    expect(errorsOf(resolve(env))).toEqual([message]);
  });

  it('rejects TLS files together with a TLS secret, naming both', async () => {
    const caFile = join(dir, 'ca.crt');
    writeFileSync(caFile, (await makeCa('etcd-ca')).cert);
    const errors = errorsOf(resolve({ ETCD_PROBE_KUBECONFIG: KUBECONFIG, ETCD_PROBE_TLS_SECRET: 'kube-system/etcd-client' }, ['--cacert', caFile]));
    expect(errors).toEqual(["ETCD_PROBE_TLS_SECRET: cannot be combined with --cacert: take etcd's TLS from one place"]);
  });

  it('rejects TLS files in Cluster API mode', async () => {
    const caFile = join(dir, 'ca2.crt');
    writeFileSync(caFile, (await makeCa('etcd-ca')).cert);
    expect(errorsOf(resolve({ ETCD_PROBE_CAPI_CLUSTER: 'default/w', ETCD_PROBE_CACERT: caFile }))).toEqual([
      "ETCD_PROBE_CACERT: is not used in Cluster API mode: etcd's CA comes from the <cluster>-etcd secret",
    ]);
  });

  it('accepts the node selector forms kubectl does', () => {
    for (const selector of ['node-role.kubernetes.io/control-plane', 'role=cp,!excluded', 'tier!=worker', 'a==b']) {
      expect(ok(resolve({ ETCD_PROBE_KUBECONFIG: KUBECONFIG, ETCD_PROBE_NODE_SELECTOR: selector })).config.nodeSelector).toBe(selector);
    }
  });
});
