import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/settings.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { CHART_DIR, ciValues, render } from '../helpers/chart-render.ts';
import { chartValues } from '../helpers/chart-values.ts';
import { podEnv, type EnvVar } from '../helpers/pod-env.ts';

// The chart and the service must agree: on the version, and on the names and formats of settings.

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const chart = chartValues('Chart.yaml') as Record<string, unknown>;

// Settings agreed for issues 3 (Kubernetes modes) and 4 (listener) that may not be in SETTINGS yet.
const AGREED = [
  'ETCD_PROBE_KUBECONFIG',
  'ETCD_PROBE_NODE_SELECTOR',
  'ETCD_PROBE_CONNECT',
  'ETCD_PROBE_TLS_SECRET',
  'ETCD_PROBE_CAPI_CLUSTER',
  'ETCD_PROBE_MANAGEMENT_KUBECONFIG',
  'ETCD_PROBE_NODE_GRACE',
  'ETCD_PROBE_AUTH_TOKEN_FILE',
  'ETCD_PROBE_AUTH_ROUTES',
  'ETCD_PROBE_TLS_CERT',
  'ETCD_PROBE_TLS_KEY',
  'ETCD_PROBE_TLS_CLIENT_CA',
  'ETCD_PROBE_MAX_CONNECTIONS',
];

let kubeconfigDir: string | null = null;
afterAll(() => {
  if (kubeconfigDir) rmSync(kubeconfigDir, { recursive: true, force: true });
});

/** A syntactically complete kubeconfig file, standing in for the one mounted from a Secret. */
function standInServiceAccount(): string {
  kubeconfigDir ??= mkdtempSync(join(tmpdir(), 'etcd-probe-chart-kubeconfig-'));
  writeFileSync(join(kubeconfigDir, 'ca.crt'), 'stand-in');
  writeFileSync(join(kubeconfigDir, 'token'), 'stand-in');
  return kubeconfigDir;
}

function standInKubeconfig(): string {
  kubeconfigDir ??= mkdtempSync(join(tmpdir(), 'etcd-probe-chart-kubeconfig-'));
  const file = join(kubeconfigDir, 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: workload, cluster: {server: "https://127.0.0.1:6443"}}]',
      'users: [{name: probe, user: {token: stand-in}}]',
      'contexts: [{name: probe@workload, context: {cluster: workload, user: probe}}]',
      'current-context: probe@workload',
      '',
    ].join('\n'),
  );
  return file;
}

/**
 * The container's environment as the kubelet builds it in the first pod (a StatefulSet's pod 0 carries
 * apps.kubernetes.io/pod-index "0"), and the token of the Secret the chart generated (null when it made none).
 */
function renderedPod(file: string, set: Record<string, string | number | boolean> = {}): { env: Record<string, string>; token: string | null } {
  const objects = render({ valuesFiles: [ciValues(file)], set });
  const d = objects.find((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet') as unknown as {
    kind: string;
    spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: { env: EnvVar[] }[] } } };
  };
  const labels = { ...d.spec.template.metadata.labels, ...(d.kind === 'StatefulSet' ? { 'apps.kubernetes.io/pod-index': '0' } : {}) };
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name.endsWith('-token')) as unknown as { data: { token: string } } | undefined;
  return {
    env: podEnv(d.spec.template.spec.containers[0]?.env ?? [], labels),
    token: secret ? Buffer.from(secret.data.token, 'base64').toString() : null,
  };
}

function envOf(file: string, set: Record<string, string | number | boolean> = {}): Record<string, string> {
  return renderedPod(file, set).env;
}

/** The environment with the token file, which exists only in the pod, pointed at a stand-in holding the generated token. */
function withTokenFile(pod: { env: Record<string, string>; token: string | null }): Record<string, string> {
  const env = { ...pod.env };
  if (env.ETCD_PROBE_AUTH_TOKEN_FILE) {
    if (pod.token === null) throw new Error('the chart sets ETCD_PROBE_AUTH_TOKEN_FILE but generated no token');
    const dir = standInServiceAccount();
    writeFileSync(join(dir, 'auth-token'), pod.token);
    env.ETCD_PROBE_AUTH_TOKEN_FILE = join(dir, 'auth-token');
  }
  return env;
}

describe('Chart.yaml', () => {
  it('is a Helm 3 chart named etcd-probe', () => {
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'etcd-probe', type: 'application' });
    expect(String(chart.version)).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("has package.json's version as appVersion", () => {
    expect(chart.appVersion).toBe(pkg.version);
  });
});

// Every worked example: each is checked against the service's settings below.
const CI_FILES = readdirSync(join(CHART_DIR, 'ci')).filter((f) => f.endsWith('.yaml'));

describe('settings the chart passes to the service', () => {
  it.each(CI_FILES)(
    'ci/%s sets only variables the service knows or that were agreed, and helpers outside its prefix',
    (file) => {
      const known = new Set([...SETTINGS.map((s) => s.env), ...AGREED]);
      const names = Object.keys(envOf(file));
      expect(names.length).toBeGreaterThan(0);
      // The service refuses an ETCD_PROBE_* variable that is no setting: a helper (POD_INDEX) must not look like one.
      expect(names.filter((n) => n.startsWith('ETCD_PROBE_') && !known.has(n))).toEqual([]);
      expect(names.filter((n) => !n.startsWith('ETCD_PROBE_'))).toEqual(chartValues(join('ci', file)).mode === 'fleet' ? ['POD_INDEX'] : []);
    },
  );

  it('renders static-mode settings that the real config resolver accepts, with the meaning intended', () => {
    const pod = renderedPod('static-values.yaml', {
      'etcdTLS.existingSecret': '', // the mounted files do not exist here; their wiring is tested in chart-render
      'config.cacheTTL': '10s',
      'config.timeout': '1500ms',
      'config.discover': false,
      'config.maxRaftGap': 5000,
      'config.logLevel': 'warn',
      'config.policy': 'strict',
    });
    // The generated token is wired in, and the service's own token-file reader takes it.
    const result = loadConfig({ env: withTokenFile(pod), argv: [], now: new Date() });
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
    expect(result.config).toMatchObject({
      endpoints: ['https://10.0.0.11:2379', 'https://10.0.0.12:2379', 'https://10.0.0.13:2379'],
      cacheTtlMs: 10_000,
      timeoutMs: 1500,
      discover: false,
      maxRaftGap: 5000,
      logLevel: 'warn',
      policy: 'strict',
      quotaBytes: 8 * 1024 ** 3,
    });
    expect(pod.token).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(result.auth?.token).toBe(pod.token);
  });

  it.each(CI_FILES)(
    "ci/%s: the service's own resolver accepts the combination the chart sets (mode rules included)",
    (file) => {
      // Settings that name files in Secret mounts are left out, or (the kubeconfig, which the service
      // reads while resolving) pointed at a stand-in: those files exist only in the pod.
      const env = withTokenFile(renderedPod(file, { 'etcdTLS.existingSecret': '', 'listener.authToken.existingSecret': '', 'listener.tls.existingSecret': '' }));
      if (env.ETCD_PROBE_KUBECONFIG?.startsWith('/etc/etcd-probe/')) env.ETCD_PROBE_KUBECONFIG = standInKubeconfig();
      // What Kubernetes gives every pod, for the in-cluster modes: the API service's address and a service account.
      const pod = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
      const result = loadConfig({ env: { ...pod, ...env }, argv: [], now: new Date(), serviceAccountDir: standInServiceAccount() });
      expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([]);
    },
  );

  it('leaves unset settings to the service defaults (no empty variables)', () => {
    for (const [name, value] of Object.entries(envOf('capi-values.yaml'))) expect(value, name).not.toBe('');
    expect(Object.keys(envOf('capi-values.yaml'))).toEqual(['ETCD_PROBE_CAPI_CLUSTER', 'ETCD_PROBE_AUTH_TOKEN_FILE']);
    expect(Object.keys(envOf('capi-values.yaml', { 'listener.authToken.generate': false }))).toEqual(['ETCD_PROBE_CAPI_CLUSTER']);
  });
});

describe('docs/helm-chart.md', () => {
  const section = readFileSync(new URL('../../docs/helm-chart.md', import.meta.url), 'utf8');

  it('shows a helm install for each mode', () => {
    const installs = section.split('helm install ').slice(1);
    expect(installs.some((i) => i.includes('static-values.yaml'))).toBe(true);
    expect(installs.some((i) => i.includes('kubeconfig-values.yaml'))).toBe(true);
    expect(installs.some((i) => i.includes('kubeconfig.inCluster=false'))).toBe(true);
    expect(installs.some((i) => i.includes('mode=capi'))).toBe(true);
    expect(installs.some((i) => i.includes('fleet-values.yaml'))).toBe(true);
    expect(installs.some((i) => i.includes('fleet.namespace='))).toBe(true);
  });

  it('lists the RBAC of every mode and says how the chart is tested with real helm', () => {
    for (const mode of ['`static`', '`kubeconfig`, `inCluster: true`', '`kubeconfig`, `inCluster: false`', '`capi`', '`fleet`, `fleet.namespace` empty', '`fleet`, `fleet.namespace` set']) {
      expect(section).toContain(`| ${mode} |`);
    }
    expect(section).toContain('## How the chart is tested');
    expect(section).toContain('helm 3.17.3 and helm 4.1.4');
  });
});
