import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { makeCa } from '#lab/certs/pki.ts';
import { errorsOf, ok, resolve } from '../cli/load-config-helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-mode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KUBECONFIG = join(dir, 'kubeconfig');
writeFileSync(KUBECONFIG, 'apiVersion: v1\nkind: Config\n');
// A stand-in of what Kubernetes gives every pod: the API service's address and a service account.
const SERVICE_ACCOUNT = join(dir, 'serviceaccount');
mkdirSync(SERVICE_ACCOUNT);
writeFileSync(join(SERVICE_ACCOUNT, 'ca.crt'), 'ca');
writeFileSync(join(SERVICE_ACCOUNT, 'token'), 'token');
const POD = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };

function inPod(env: Record<string, string>) {
  return loadConfig({ env: { ...POD, ...env }, argv: [], now: new Date(), serviceAccountDir: SERVICE_ACCOUNT });
}

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
    const inCluster = ok(inPod({ ETCD_PROBE_KUBECONFIG: 'in-cluster' }));
    expect(inCluster.config.kubeconfig).toEqual({ kind: 'in-cluster' });
    expect(inCluster.inCluster).toEqual({ server: 'https://10.96.0.1:443', caFile: join(SERVICE_ACCOUNT, 'ca.crt'), tokenFile: join(SERVICE_ACCOUNT, 'token') });
    expect(ok(resolve({ ETCD_PROBE_KUBECONFIG: KUBECONFIG })).inCluster).toBeNull();
  });

  it('refuses in-cluster outside a pod, or without a mounted service account, naming the setting', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_KUBECONFIG: 'in-cluster' }))).toEqual([
      'ETCD_PROBE_KUBECONFIG: in-cluster credentials need KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, which Kubernetes sets in every pod: run inside a pod, or give a kubeconfig file',
    ]);
    const noAccount = loadConfig({ env: { ...POD, ETCD_PROBE_CAPI_CLUSTER: 'default/w' }, argv: [], now: new Date(), serviceAccountDir: join(dir, 'none') });
    expect(noAccount.ok ? [] : noAccount.errors.map((e) => e.message)).toEqual([
      `ETCD_PROBE_MANAGEMENT_KUBECONFIG: in-cluster credentials need ${join(dir, 'none', 'ca.crt')}: is the service account token mounted (automountServiceAccountToken)?`,
      `ETCD_PROBE_MANAGEMENT_KUBECONFIG: in-cluster credentials need ${join(dir, 'none', 'token')}: is the service account token mounted (automountServiceAccountToken)?`,
    ]);
    expect(ok(inPod({ KUBERNETES_SERVICE_HOST: 'fd00::1', ETCD_PROBE_KUBECONFIG: 'in-cluster' })).inCluster?.server).toBe('https://[fd00::1]:443');
  });

  it('is capi with ETCD_PROBE_CAPI_CLUSTER', () => {
    const { config } = ok(inPod({ ETCD_PROBE_CAPI_CLUSTER: 'default/workload-1' }));
    expect(config.mode).toBe('capi');
    expect(config.capiCluster).toEqual({ namespace: 'default', name: 'workload-1' });
    expect(config.managementKubeconfig).toBeNull();
  });

  it.each([
    [{ ETCD_PROBE_KUBECONFIG: '/nowhere/kubeconfig' }, 'ETCD_PROBE_KUBECONFIG: cannot read /nowhere/kubeconfig: no such file'],
    [{ ETCD_PROBE_CAPI_CLUSTER: 'workload' }, "ETCD_PROBE_CAPI_CLUSTER: 'workload' is not namespace/name; a fleet is * or namespace/*"],
    [{ ETCD_PROBE_CAPI_CLUSTER: 'Default/w' }, "ETCD_PROBE_CAPI_CLUSTER: 'Default' is not a valid namespace (lowercase letters, digits and '-'); a fleet is * or namespace/*"],
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
    [
      { ETCD_PROBE_FLEET_HOLD_CONNECTIONS: 'true' },
      'ETCD_PROBE_FLEET_HOLD_CONNECTIONS: applies only in fleet mode (ETCD_PROBE_CLUSTERS_FILE, or ETCD_PROBE_CAPI_CLUSTER=* or namespace/*)',
    ],
    [
      { ETCD_PROBE_CAPI_CLUSTER: '*', ETCD_PROBE_MANAGEMENT_KUBECONFIG: KUBECONFIG, ETCD_PROBE_FLEET_HOLD_CONNECTIONS: 'sometimes' },
      "ETCD_PROBE_FLEET_HOLD_CONNECTIONS: 'sometimes' is not a boolean (use true or false)",
    ],
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
