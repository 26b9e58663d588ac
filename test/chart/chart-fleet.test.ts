import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { ciValues, render, renderFailures, renderNotes, type K8sObject, type RenderOptions } from '../helpers/chart-render.ts';
import { podEnv, type EnvVar } from '../helpers/pod-env.ts';

// Fleet mode (issue 15): a StatefulSet whose pod <i> owns shard i/replicaCount, a headless Service that
// the ServiceMonitor scrapes each replica through, and the client Service as in every mode. The shard
// is checked as the pod will see it: the kubelet's $(VAR) expansion over the downward-API label, then
// the service's own configuration resolver.

const FLEET: RenderOptions = { valuesFiles: [ciValues('fleet-values.yaml')] };
const FLEET_NAMESPACE: RenderOptions = { valuesFiles: [ciValues('fleet-namespace-values.yaml')] };
const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

interface StatefulSet {
  metadata: { name: string };
  spec: {
    replicas: number;
    serviceName: string;
    podManagementPolicy?: string;
    volumeClaimTemplates?: unknown[];
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: { containers: { env: EnvVar[] }[] } };
  };
}
interface Service {
  metadata: { name: string; labels: Record<string, string> };
  spec: { clusterIP?: string; selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] };
}

function ofKind<T>(objects: K8sObject[], kind: string): T[] {
  return objects.filter((o) => o.kind === kind) as unknown as T[];
}
function statefulSet(objects: K8sObject[]): StatefulSet {
  const found = ofKind<StatefulSet>(objects, 'StatefulSet');
  if (found.length !== 1) throw new Error(`expected one StatefulSet, found ${found.length}`);
  return found[0] as StatefulSet;
}
function headless(objects: K8sObject[]): Service {
  const found = ofKind<Service>(objects, 'Service').filter((s) => s.spec.clusterIP === 'None');
  if (found.length !== 1) throw new Error(`expected one headless Service, found ${found.length}`);
  return found[0] as Service;
}
function envList(objects: K8sObject[]): EnvVar[] {
  return statefulSet(objects).spec.template.spec.containers[0]?.env ?? [];
}
/** The environment of the StatefulSet's pod with this ordinal (null: a pod without the label). */
function envOfPod(objects: K8sObject[], ordinal: number | null): Record<string, string> {
  const labels = { ...statefulSet(objects).spec.template.metadata.labels, ...(ordinal === null ? {} : { [POD_INDEX_LABEL]: String(ordinal) }) };
  return podEnv(envList(objects), labels);
}

let standIn: string | null = null;
afterAll(() => {
  if (standIn) rmSync(standIn, { recursive: true, force: true });
});
/** What Kubernetes mounts in every pod with a token: the service account's CA and token (stand-ins). */
function serviceAccountDir(): string {
  standIn ??= mkdtempSync(join(tmpdir(), 'etcd-probe-chart-fleet-'));
  writeFileSync(join(standIn, 'ca.crt'), 'stand-in');
  writeFileSync(join(standIn, 'token'), 'stand-in');
  return standIn;
}
function resolve(env: Record<string, string>) {
  const pod = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
  return loadConfig({ env: { ...pod, ...env }, argv: [], now: new Date(), serviceAccountDir: serviceAccountDir() });
}

describe('fleet mode: the workload', () => {
  const objects = render(FLEET);

  it('is a StatefulSet, with no Deployment, of replicaCount pods, governed by the headless Service', () => {
    expect(ofKind(objects, 'Deployment')).toEqual([]);
    const sts = statefulSet(objects);
    expect(sts.metadata.name).toBe('probe-etcd-probe');
    expect(sts.spec.replicas).toBe(3);
    expect(sts.spec.serviceName).toBe(headless(objects).metadata.name);
    expect(sts.spec.podManagementPolicy).toBe('Parallel');
    // Nothing to keep: no volume claims, which would outlive the pods.
    expect(sts.spec.volumeClaimTemplates).toBeUndefined();
  });

  it('publishes the http port of every pod on the headless Service, and keeps the client Service', () => {
    const sts = statefulSet(objects);
    const services = ofKind<Service>(objects, 'Service');
    expect(services.map((s) => `${s.metadata.name} ${s.spec.clusterIP ?? 'cluster IP'}`).sort()).toEqual([
      'probe-etcd-probe cluster IP',
      'probe-etcd-probe-headless None',
    ]);
    for (const service of services) {
      expect(sts.spec.template.metadata.labels, service.metadata.name).toMatchObject(service.spec.selector);
      expect(service.spec.ports.map((p) => `${p.name}->${p.targetPort}`)).toEqual(['http->http']);
    }
  });

  it("runs the image's entrypoint with fleet.heapMiB as Node's heap limit and a 16 MiB young generation, the rest as the Dockerfile has it", () => {
    const [container] = statefulSet(objects).spec.template.spec.containers as unknown as { command?: string[] }[];
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8'))?.[1];
    const fleetFlags: Record<string, string> = { '--max-old-space-size=128': '--max-old-space-size=512', '--max-semi-space-size=4': '--max-semi-space-size=16' };
    const expected = (JSON.parse(entrypoint ?? '[]') as string[]).map((a) => fleetFlags[a] ?? a);
    expect(expected).toContain('--max-semi-space-size=16');
    expect(container?.command).toEqual(expected);
  });

  it('renders the same pod as the Deployment of capi mode, apart from the fleet settings (env, heap, and the ci values\' resources)', () => {
    const capi = render({ valuesFiles: [ciValues('capi-values.yaml')], set: { replicaCount: 3, 'metrics.serviceMonitor.enabled': true } });
    const deployment = ofKind<StatefulSet>(capi, 'Deployment')[0];
    const strip = (template: StatefulSet['spec']['template']) => ({
      ...template,
      spec: { ...template.spec, containers: template.spec.containers.map(({ command: _command, resources: _resources, ...c }: typeof template.spec.containers[number] & { command?: unknown; resources?: unknown }) => ({ ...c, env: c.env.filter((e) => e.name === 'ETCD_PROBE_AUTH_TOKEN_FILE') })) },
    });
    expect(deployment).toBeDefined();
    expect(strip(statefulSet(objects).spec.template)).toEqual(strip((deployment as StatefulSet).spec.template));
  });
});

describe('fleet mode: each pod its shard', () => {
  it('reads the ordinal from the pod-index label into POD_INDEX, and builds ETCD_PROBE_SHARD after it', () => {
    const env = envList(render(FLEET));
    const names = env.map((e) => e.name);
    expect(env.find((e) => e.name === 'POD_INDEX')).toEqual({ name: 'POD_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${POD_INDEX_LABEL}']` } } });
    expect(env.find((e) => e.name === 'ETCD_PROBE_SHARD')).toEqual({ name: 'ETCD_PROBE_SHARD', value: '$(POD_INDEX)/3' });
    // The kubelet expands only references to entries above.
    expect(names.indexOf('POD_INDEX')).toBeLessThan(names.indexOf('ETCD_PROBE_SHARD'));
  });

  it.each([1, 2, 3, 5])('with %i replicas, pod i owns shard i/count by the service\'s own resolver, and together they own every shard once', (count) => {
    const objects = render({ ...FLEET, set: { replicaCount: count, 'listener.authToken.generate': false } });
    const shards = Array.from({ length: count }, (_, ordinal) => {
      const result = resolve(envOfPod(objects, ordinal));
      if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
      return result.config.shard;
    });
    expect(shards).toEqual(Array.from({ length: count }, (_, index) => ({ index, count })));
  });

  it('passes the fleet settings with the meaning intended', () => {
    const result = resolve(envOfPod(render({ ...FLEET, set: { 'listener.authToken.generate': false } }), 2));
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
    expect(result.deployment).toEqual({ kind: 'capi-fleet', namespace: null, selector: 'etcd-probe.example/watch=true,!etcd-probe.example/skip' });
    expect(result.config).toMatchObject({
      shard: { index: 2, count: 3 },
      fleetRefreshMs: 30_000,
      maxRoundsInFlight: 8,
      holdConnections: false,
      managementKubeconfig: null,
    });
    const holding = resolve(envOfPod(render({ ...FLEET, set: { 'listener.authToken.generate': false, 'fleet.holdConnections': true } }), 0));
    if (!holding.ok) throw new Error(holding.errors.map((e) => e.message).join('; '));
    expect(holding.config.holdConnections).toBe(true);
  });

  it('follows one namespace with fleet.namespace, and leaves the other fleet settings to the service', () => {
    const objects = render({ ...FLEET_NAMESPACE, set: { 'listener.authToken.generate': false } });
    expect(envOfPod(objects, 1)).toEqual({ POD_INDEX: '1', ETCD_PROBE_CAPI_CLUSTER: 'clusters/*', ETCD_PROBE_SHARD: '1/2' });
    const result = resolve(envOfPod(objects, 1));
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
    expect(result.deployment).toEqual({ kind: 'capi-fleet', namespace: 'clusters', selector: null });
    expect(result.config).toMatchObject({ shard: { index: 1, count: 2 } });
  });

  it('makes a pod without the label (Kubernetes before 1.28, or the gate off) fail at start naming ETCD_PROBE_SHARD, never guess a shard', () => {
    const env = envOfPod(render({ ...FLEET, set: { 'listener.authToken.generate': false } }), null);
    expect(env.ETCD_PROBE_SHARD).toBe('/3');
    const result = resolve(env);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map((e) => e.message).join('; ')).toContain('ETCD_PROBE_SHARD');
  });

  it('refuses to render for Kubernetes before 1.28, which sets no pod-index label', () => {
    for (const { helm, message } of renderFailures({ ...FLEET, kubeVersion: '1.27.9' })) {
      expect(message, helm).toContain('mode: fleet needs Kubernetes 1.28 or later (this is v1.27.9)');
    }
    expect(statefulSet(render({ ...FLEET, kubeVersion: '1.28.0' })).spec.replicas).toBe(3);
  });
});

describe('fleet mode: scraping', () => {
  const objects = render(FLEET);
  const monitor = ofKind<{ spec: { jobLabel: string; selector: { matchLabels: Record<string, string> } } }>(objects, 'ServiceMonitor')[0];

  it('selects the headless Service, and only it, so that each replica is scraped once', () => {
    expect(monitor).toBeDefined();
    const matchLabels = monitor?.spec.selector.matchLabels ?? {};
    const selected = ofKind<Service>(objects, 'Service').filter((s) => Object.entries(matchLabels).every(([k, v]) => s.metadata.labels[k] === v));
    expect(selected.map((s) => s.metadata.name)).toEqual([headless(objects).metadata.name]);
  });

  it("keeps job=\"etcd-probe\" (the headless Service's name label), which EtcdProbeDown selects", () => {
    expect(monitor?.spec.jobLabel).toBe('app.kubernetes.io/name');
    expect(headless(objects).metadata.labels['app.kubernetes.io/name']).toBe('etcd-probe');
  });

  it('leaves the other modes scraping their one Service as before', () => {
    const capi = render({ valuesFiles: [ciValues('capi-values.yaml')], set: { 'metrics.serviceMonitor.enabled': true } });
    const sm = ofKind<{ spec: { selector: { matchLabels: Record<string, string> } } }>(capi, 'ServiceMonitor')[0];
    expect(sm?.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'etcd-probe', 'app.kubernetes.io/instance': 'probe' });
    expect(ofKind(capi, 'Service')).toHaveLength(1);
  });
});

describe('fleet mode: names', () => {
  it('keeps the headless Service apart from the client Service, and the StatefulSet name short enough for its pods, with the longest full name', () => {
    const objects = render({ ...FLEET, set: { fullnameOverride: `probe-${'x'.repeat(56)}` } });
    const services = ofKind<Service>(objects, 'Service').map((s) => s.metadata.name);
    expect(new Set(services).size).toBe(2);
    for (const service of services) expect(service.length, service).toBeLessThanOrEqual(63);
    expect(headless(objects).metadata.name).toMatch(/-headless$/);
    // Pods carry controller-revision-hash=<StatefulSet>-<hash of up to 10 characters>, a label value of at most 63.
    expect(statefulSet(objects).metadata.name.length).toBeLessThanOrEqual(52);
  });
});

describe('fleet mode: NOTES.txt', () => {
  it('says what the fleet is, how it is shared, how to scale it, and what to try', () => {
    const notes = renderNotes(FLEET);
    expect(notes).toContain('(mode: fleet)');
    expect(notes).toContain('It probes every Cluster API Cluster in every namespace with labels etcd-probe.example/watch=true,!etcd-probe.example/skip, connect: port-forward.');
    expect(notes).toContain('shared by the 3 replicas of StatefulSet probe-etcd-probe');
    expect(notes).toContain('helm upgrade --set replicaCount=N`, not `kubectl scale`');
    expect(notes).toContain('-H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/clusters');
    // The single-cluster routes answer for one cluster, which a fleet does not have.
    expect(notes).not.toContain('/healthz/etcd');
    expect(notes).not.toContain('/members');
  });

  it('names the namespace when the fleet is one namespace', () => {
    expect(renderNotes(FLEET_NAMESPACE)).toContain('It probes every Cluster API Cluster in namespace clusters, connect: port-forward.');
  });
});

// Issue 25, hole 6: `mode: fleet` rendered --max-old-space-size=512 beside the default 192Mi memory limit.
describe("fleet mode's memory limit (helm 3 and helm 4 alike)", () => {
  const limitOf = (options: RenderOptions) => {
    const [container] = statefulSet(render(options)).spec.template.spec.containers as unknown as { resources: { limits: { memory: string } } }[];
    return container?.resources.limits.memory;
  };

  it('follows fleet.heapMiB when none is set: the heap plus 320Mi, plus 576Mi with held connections', () => {
    expect(limitOf({ set: { mode: 'fleet' } })).toBe('832Mi');
    expect(limitOf({ set: { mode: 'fleet', 'fleet.heapMiB': 1024 } })).toBe('1344Mi');
    expect(limitOf({ set: { mode: 'fleet', 'fleet.holdConnections': true } })).toBe('1088Mi');
  });

  it('keeps a limit set at or above the heap plus 160Mi, and refuses one below, naming both values', () => {
    expect(limitOf({ set: { mode: 'fleet', 'resources.limits.memory': '1Gi' } })).toBe('1Gi');
    expect(limitOf({ set: { mode: 'fleet', 'resources.limits.memory': '672Mi' } })).toBe('672Mi');
    for (const { helm, message } of renderFailures({ set: { mode: 'fleet', 'resources.limits.memory': '192Mi' } })) {
      expect(message, helm).toContain('resources.limits.memory: 192Mi is below what fleet mode needs with fleet.heapMiB 512: at least 672Mi');
    }
    for (const { helm, message } of renderFailures({ set: { mode: 'fleet', 'resources.limits.memory': 'lots' } })) {
      expect(message, helm).toContain('resources.limits.memory: "lots" is not a memory quantity');
    }
  });
});
