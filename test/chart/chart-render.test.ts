import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, ciValues, helms, render, renderFailures, renderNotes, type K8sObject, type RenderOptions } from '../helpers/chart-render.ts';
import { chartValues } from '../helpers/chart-values.ts';
import { schemaProblems } from '../helpers/k8s-validate.ts';

// Renders the chart with helm 3 and helm 4 (render() fails unless both print the same manifests) and
// checks what a cluster would receive: valid objects, hardened pods, consistent names and wiring.

const ciFiles = readdirSync(join(CHART_DIR, 'ci')).filter((f) => f.endsWith('.yaml'));
const STATIC: RenderOptions = { valuesFiles: [ciValues('static-values.yaml')] };

interface Container {
  name: string;
  image: string;
  ports?: { name: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  securityContext?: Record<string, unknown>;
  livenessProbe?: { httpGet: { path: string; port: string; scheme: string } };
  readinessProbe?: { httpGet: { path: string; port: string; scheme: string } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  serviceAccountName: string;
  securityContext?: Record<string, unknown>;
  topologySpreadConstraints?: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } }[];
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; emptyDir?: unknown; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
}
/** A Deployment, or fleet mode's StatefulSet: the fields both have. */
interface Workload {
  spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
}

function only(objects: K8sObject[], kind: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0] as K8sObject;
}
/** The one object that runs the pods: a Deployment, or a StatefulSet in fleet mode, never both. */
function workload(objects: K8sObject[]): Workload {
  const found = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
  if (found.length !== 1) throw new Error(`expected one Deployment or StatefulSet, found ${found.map((o) => o.kind).join(', ') || 'none'}`);
  return found[0] as unknown as Workload;
}
/** The Service clients use, named after the release (fleet mode adds a headless one). */
function clientService(objects: K8sObject[]): K8sObject {
  const found = objects.filter((o) => o.kind === 'Service' && o.metadata.name === 'probe-etcd-probe');
  if (found.length !== 1) throw new Error(`expected one Service probe-etcd-probe, found ${found.length}`);
  return found[0] as K8sObject;
}
function container(objects: K8sObject[]): Container {
  return workload(objects).spec.template.spec.containers[0] as Container;
}
function env(objects: K8sObject[]): Record<string, string | undefined> {
  return Object.fromEntries((container(objects).env ?? []).map((e) => [e.name, e.value]));
}
function kinds(objects: K8sObject[]): string[] {
  return objects.map((o) => o.kind).sort();
}

describe('rendering the chart', () => {
  it('renders with real helm 3 and helm 4 (fetched when missing, never silently skipped)', () => {
    expect(helms().map((h) => h.version)).toEqual(['v3.17.3', 'v4.1.4']);
  });

  describe.each(ciFiles)('with ci/%s', (file) => {
    const objects = render({ valuesFiles: [ciValues(file)] });

    it('renders only objects that pass the Kubernetes schemas, with no unknown fields', () => {
      expect(objects.length).toBeGreaterThan(3);
      expect(objects.map((o) => ({ kind: o.kind, name: o.metadata.name, problems: schemaProblems(o) }))).toEqual(
        objects.map((o) => ({ kind: o.kind, name: o.metadata.name, problems: [] })),
      );
    });

    it('hardens every container and the pod', () => {
      const pod = workload(objects).spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const sc = c.securityContext ?? {};
        expect(sc, c.name).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(Number.isInteger(sc.runAsUser) && (sc.runAsUser as number) > 0, `${c.name} runAsUser is a non-zero number`).toBe(true);
        expect(sc.privileged ?? false).toBe(false);
        expect((sc.capabilities as { add?: unknown[] }).add ?? []).toEqual([]);
        expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        expect(c.resources?.requests).toBeDefined();
        expect(c.resources?.limits?.memory).toBeDefined();
      }
      expect(pod.volumes).toContainEqual(expect.objectContaining({ name: 'tmp', emptyDir: expect.any(Object) }));
      // Service links would inject ETCD_PROBE_SERVICE_HOST & co. for a Service named etcd-probe.
      expect(pod.enableServiceLinks).toBe(false);
    });

    it('runs the replicas asked for (two by default) spread across nodes, probed on /livez and /readyz', () => {
      const d = workload(objects);
      expect(d.spec.replicas).toBe(chartValues(join('ci', file)).replicaCount ?? 2);
      const podLabels = d.spec.template.metadata.labels;
      expect(podLabels).toMatchObject(d.spec.selector.matchLabels);
      const spread = d.spec.template.spec.topologySpreadConstraints ?? [];
      expect(spread.map((t) => t.topologyKey)).toContain('kubernetes.io/hostname');
      for (const t of spread) expect(podLabels).toMatchObject(t.labelSelector.matchLabels);
      const c = container(objects);
      expect(c.livenessProbe?.httpGet).toMatchObject({ path: '/livez', port: 'http' });
      expect(c.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
      expect(c.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    });

    it('wires every mount to a volume and every volume to a mount, and mounts secrets read-only', () => {
      const pod = workload(objects).spec.template.spec;
      const mounts = pod.containers.flatMap((c) => c.volumeMounts ?? []);
      const volumes = pod.volumes ?? [];
      expect(mounts.map((m) => m.name).sort()).toEqual(volumes.map((v) => v.name).sort());
      for (const v of volumes.filter((x) => x.secret)) {
        expect(mounts.find((m) => m.name === v.name)?.readOnly, v.name).toBe(true);
      }
    });

    it('points the Service, the PodDisruptionBudget and the ServiceAccount at the pods', () => {
      const d = workload(objects);
      const podLabels = d.spec.template.metadata.labels;
      const svc = clientService(objects) as unknown as { spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] } };
      expect(podLabels).toMatchObject(svc.spec.selector);
      expect(svc.spec.ports).toEqual([{ name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' }]);
      const pdb = only(objects, 'PodDisruptionBudget') as unknown as { spec: { minAvailable: number; selector: { matchLabels: Record<string, string> } } };
      expect(pdb.spec.minAvailable).toBe(1);
      expect(podLabels).toMatchObject(pdb.spec.selector.matchLabels);
      expect(only(objects, 'ServiceAccount').metadata.name).toBe(d.spec.template.spec.serviceAccountName);
    });

    it('puts every namespaced object in the release namespace (RBAC aside) and labels everything', () => {
      for (const o of objects) {
        expect(o.metadata.labels?.['app.kubernetes.io/instance'], `${o.kind} ${o.metadata.name}`).toBe('probe');
        if (!o.kind.startsWith('Cluster') && o.kind !== 'Role' && o.kind !== 'RoleBinding') {
          expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe('probes');
        }
      }
    });
  });

  it('uses the chart appVersion as the default image tag', () => {
    expect(container(render(STATIC)).image).toBe(`etcd-probe:${String((chartValues('Chart.yaml') as { appVersion: string }).appVersion)}`);
    expect(container(render({ ...STATIC, set: { 'image.tag': 'v9' } })).image).toBe('etcd-probe:v9');
  });

  it('passes the static settings as ETCD_PROBE_* variables and mounts the etcd client TLS Secret', () => {
    const objects = render({ ...STATIC, set: { 'config.timeout': '3s', 'config.logLevel': 'debug', 'config.maxRaftGap': 200 } });
    expect(env(objects)).toEqual({
      ETCD_PROBE_ENDPOINTS: 'https://10.0.0.11:2379,https://10.0.0.12:2379,https://10.0.0.13:2379',
      ETCD_PROBE_CACERT: '/etc/etcd-probe/etcd-tls/ca.crt',
      ETCD_PROBE_CERT: '/etc/etcd-probe/etcd-tls/tls.crt',
      ETCD_PROBE_KEY: '/etc/etcd-probe/etcd-tls/tls.key',
      ETCD_PROBE_POLICY: 'quorum',
      ETCD_PROBE_QUOTA_BYTES: '8GiB',
      ETCD_PROBE_TIMEOUT: '3s',
      ETCD_PROBE_LOG_LEVEL: 'debug',
      ETCD_PROBE_MAX_RAFT_GAP: '200',
      ETCD_PROBE_AUTH_TOKEN_FILE: '/etc/etcd-probe/auth/token',
    });
    const pod = workload(objects).spec.template.spec;
    expect(pod.volumes).toContainEqual({
      name: 'etcd-tls',
      secret: {
        secretName: 'etcd-client',
        defaultMode: 288,
        items: [
          { key: 'ca.crt', path: 'ca.crt' },
          { key: 'tls.crt', path: 'tls.crt' },
          { key: 'tls.key', path: 'tls.key' },
        ],
      },
    });
    expect(pod.containers[0]?.volumeMounts).toContainEqual({ name: 'etcd-tls', mountPath: '/etc/etcd-probe/etcd-tls', readOnly: true });
  });

  it('passes the workload-cluster settings in kubeconfig mode', () => {
    expect(env(render({ valuesFiles: [ciValues('kubeconfig-values.yaml')] }))).toEqual({
      ETCD_PROBE_KUBECONFIG: 'in-cluster',
      ETCD_PROBE_TLS_SECRET: 'kube-system/etcd-probe-client',
      ETCD_PROBE_CONNECT: 'port-forward',
      ETCD_PROBE_NODE_GRACE: '2m',
      ETCD_PROBE_AUTH_TOKEN_FILE: '/etc/etcd-probe/auth/token',
    });
  });

  it('mounts a kubeconfig from an existing Secret when not in-cluster', () => {
    const objects = render({ valuesFiles: [ciValues('kubeconfig-file-values.yaml')] });
    expect(env(objects)).toMatchObject({ ETCD_PROBE_KUBECONFIG: '/etc/etcd-probe/kubeconfig/kubeconfig' });
    expect(workload(objects).spec.template.spec.volumes).toContainEqual({
      name: 'kubeconfig',
      secret: { secretName: 'workload-kubeconfig', defaultMode: 288, items: [{ key: 'value', path: 'kubeconfig' }] },
    });
  });

  it('passes the Cluster in capi mode and nothing static', () => {
    expect(env(render({ valuesFiles: [ciValues('capi-values.yaml')], set: { 'kube.nodeSelector': 'node-role.kubernetes.io/master' } }))).toEqual({
      ETCD_PROBE_CAPI_CLUSTER: 'clusters/prod-eu1',
      ETCD_PROBE_NODE_SELECTOR: 'node-role.kubernetes.io/master',
      ETCD_PROBE_AUTH_TOKEN_FILE: '/etc/etcd-probe/auth/token',
    });
  });

  it('wires the listener: token file, TLS files, client CA, HTTPS probes and an authorized ServiceMonitor', () => {
    const objects = render({ valuesFiles: [ciValues('monitoring-values.yaml')] });
    expect(env(objects)).toMatchObject({
      ETCD_PROBE_AUTH_TOKEN_FILE: '/etc/etcd-probe/auth/token',
      ETCD_PROBE_TLS_CERT: '/etc/etcd-probe/listener-tls/tls.crt',
      ETCD_PROBE_TLS_KEY: '/etc/etcd-probe/listener-tls/tls.key',
      ETCD_PROBE_TLS_CLIENT_CA: '/etc/etcd-probe/listener-client-ca/ca.crt',
      ETCD_PROBE_MAX_CONNECTIONS: '256',
      ETCD_PROBE_DISCOVER: 'false',
    });
    const c = container(objects);
    expect(c.livenessProbe?.httpGet.scheme).toBe('HTTPS');
    expect(c.readinessProbe?.httpGet.scheme).toBe('HTTPS');
    const sm = only(objects, 'ServiceMonitor') as unknown as { metadata: { labels: Record<string, string> }; spec: { jobLabel: string; endpoints: Record<string, unknown>[] } };
    expect(sm.metadata.labels.release).toBe('kube-prometheus-stack');
    // The job label comes from the Service's name label, `etcd-probe`: what EtcdProbeDown selects.
    expect(sm.spec.jobLabel).toBe('app.kubernetes.io/name');
    const service = clientService(objects) as unknown as { metadata: { labels: Record<string, string> } };
    expect(service.metadata.labels['app.kubernetes.io/name']).toBe('etcd-probe');
    expect(sm.spec.endpoints).toEqual([
      expect.objectContaining({
        port: 'http',
        path: '/metrics',
        scheme: 'https',
        authorization: { type: 'Bearer', credentials: { name: 'etcd-probe-token', key: 'token' } },
      }),
    ]);
  });

  it('embeds the rule groups of files/alerts.yaml in the PrometheusRule, unchanged', () => {
    const rule = only(render({ valuesFiles: [ciValues('monitoring-values.yaml')] }), 'PrometheusRule') as unknown as { spec: { groups: unknown[] } };
    const file = chartValues('files/alerts.yaml') as { groups: unknown[] };
    expect(file.groups.length).toBeGreaterThan(0);
    // Equal also means that Prometheus' own {{ $labels }} / {{ $value }} templating reached it untouched.
    expect(rule.spec.groups).toEqual(file.groups);
  });

  it('is secure by default: a NetworkPolicy and a generated token; monitoring stays off (it needs the operator CRDs)', () => {
    const objects = render({ values: { static: { endpoints: ['http://e:2379'] } } });
    expect(kinds(objects)).toEqual(['Deployment', 'NetworkPolicy', 'PodDisruptionBudget', 'Secret', 'Service', 'ServiceAccount']);
    expect(only(objects, 'Secret').metadata.name).toBe('probe-etcd-probe-token');
    expect(env(objects).ETCD_PROBE_AUTH_TOKEN_FILE).toBe('/etc/etcd-probe/auth/token');
  });

  it('turns each default off on request: no NetworkPolicy, no token (every route open)', () => {
    const objects = render({ values: { static: { endpoints: ['http://e:2379'] }, networkPolicy: { enabled: false }, listener: { authToken: { generate: false } } } });
    expect(kinds(objects)).toEqual(['Deployment', 'PodDisruptionBudget', 'Service', 'ServiceAccount']);
    expect(env(objects).ETCD_PROBE_AUTH_TOKEN_FILE).toBeUndefined();
    expect(workload(objects).spec.template.spec.volumes?.map((v) => v.name)).toEqual(['tmp']);
  });

  it('drops the PodDisruptionBudget with a single replica (it would block every drain)', () => {
    expect(kinds(render({ ...STATIC, set: { replicaCount: 1 } }))).not.toContain('PodDisruptionBudget');
  });

  describe('NetworkPolicy', () => {
    type Rule = { ports: { port: number; protocol: string }[]; to?: unknown[]; from?: unknown[] };
    const policy = (options: RenderOptions) =>
      only(render(options), 'NetworkPolicy') as unknown as { spec: { policyTypes: string[]; ingress: Rule[]; egress: Rule[] } };
    const egressPorts = (p: ReturnType<typeof policy>) => p.spec.egress.flatMap((r) => r.ports.map((x) => `${x.port}/${x.protocol}`)).sort();

    it('admits 8080 only, and lets static mode reach DNS and etcd, not the API server', () => {
      const p = policy(STATIC);
      expect(p.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(p.spec.ingress).toEqual([{ ports: [{ port: 8080, protocol: 'TCP' }] }]);
      expect(egressPorts(p)).toEqual(['2379/TCP', '53/TCP', '53/UDP']);
      expect(p.spec.egress.find((r) => r.ports[0]?.port === 2379)?.to).toEqual([{ ipBlock: { cidr: '10.0.0.0/24' } }]);
    });

    it('lets a port-forwarding probe reach the API server, not etcd directly', () => {
      expect(egressPorts(policy({ valuesFiles: [ciValues('kubeconfig-values.yaml')], set: { 'networkPolicy.enabled': true } }))).toEqual(
        ['443/TCP', '53/TCP', '53/UDP', '6443/TCP'],
      );
    });

    it('lets a direct probe reach both', () => {
      expect(
        egressPorts(policy({ valuesFiles: [ciValues('kubeconfig-values.yaml')], set: { 'networkPolicy.enabled': true, 'kube.connect': 'direct' } })),
      ).toEqual(['2379/TCP', '443/TCP', '53/TCP', '53/UDP', '6443/TCP']);
    });

    it('lets a Cluster API probe reach only API servers (it always port-forwards)', () => {
      expect(egressPorts(policy({ valuesFiles: [ciValues('capi-values.yaml')], set: { 'networkPolicy.enabled': true } }))).toEqual(
        ['443/TCP', '53/TCP', '53/UDP', '6443/TCP'],
      );
    });

    it('lets a fleet reach only API servers (the management cluster, and each workload cluster to port-forward)', () => {
      expect(egressPorts(policy({ valuesFiles: [ciValues('fleet-values.yaml')] }))).toEqual(['443/TCP', '53/TCP', '53/UDP', '6443/TCP']);
    });

    it('limits ingress to the given peers', () => {
      expect(policy({ valuesFiles: [ciValues('monitoring-values.yaml')] }).spec.ingress[0]?.from).toEqual([
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
      ]);
    });
  });

  it('prints the port-forward and curl to try in NOTES.txt', () => {
    const notes = renderNotes(STATIC);
    expect(notes).toContain('kubectl --namespace probes port-forward service/probe-etcd-probe 8080:8080');
    expect(notes).toContain('curl -s http://127.0.0.1:8080/healthz/etcd');
    const secured = renderNotes({ valuesFiles: [ciValues('monitoring-values.yaml')] });
    expect(secured).toContain('curl -sk https://127.0.0.1:8080/healthz/etcd');
    expect(secured).toContain('-H "Authorization: Bearer $TOKEN" https://127.0.0.1:8080/members');
  });

  describe('refuses values it cannot honour, naming the value', () => {
    // The schema speaks first (helm checks it before rendering; helm 3 and helm 4 word its messages
    // differently, so only the value's path is required of them). The templates' own checks stand behind
    // it for --skip-schema-validation, with the same words in both.
    const cases: [string, RenderOptions, string, string][] = [
      ['capi without a Cluster', { set: { mode: 'capi', 'capi.cluster.namespace': 'clusters' } }, 'capi.cluster.name', 'capi.cluster.name: mode capi needs the Cluster'],
      ['a kubeconfig from nowhere', { set: { mode: 'kubeconfig', 'kubeconfig.inCluster': false } }, 'kubeconfig.existingSecret', 'kubeconfig.existingSecret: mode kubeconfig with inCluster=false'],
      ['an unknown mode', { set: { mode: 'bogus' } }, 'mode', 'mode: "bogus" is not one of static, kubeconfig, capi, fleet'],
      ['fleet mode with a Cluster named', { set: { mode: 'fleet', 'capi.cluster.name': 'prod-eu1' } }, 'capi.cluster.name', 'capi.cluster: mode fleet follows every Cluster of fleet.namespace'],
      ['fleet mode with more shards than the service takes', { set: { mode: 'fleet', replicaCount: 1001 } }, 'replicaCount', 'replicaCount: 1001 is more shards than the service takes'],
    ];
    it.each(cases)('%s, in the schema', (_what, options, value) => {
      for (const { helm, message } of renderFailures(options)) expect(message, helm).toMatch(new RegExp(`values don't meet the specifications[\\s\\S]*${value.replaceAll('.', '[./]')}`));
    });
    it.each(cases)('%s, in the templates', (_what, options, _value, templateMessage) => {
      for (const { helm, message } of renderFailures({ ...options, skipSchemaValidation: true })) expect(message, helm).toContain(templateMessage);
    });

    it('static without endpoints (what a bare `helm install` meets): the template names the value and how to set it', () => {
      // The schema lets the empty default list through so that `helm lint` passes with no values (its lint
      // mode reports a template's `fail` as INFO); every install or template stops here.
      for (const { helm, message } of renderFailures({})) {
        expect(message, helm).toContain('static.endpoints: mode static (the default) needs at least one etcd client URL');
        expect(message, helm).toContain("--set 'static.endpoints={https://10.0.0.1:2379}'");
      }
    });
  });
});
