import { describe, expect, it } from 'vitest';
import { ciValues, render, renderFailures, type K8sObject, type RenderOptions } from '../helpers/chart-render.ts';

// Least privilege, checked on the rendered objects: each mode gets exactly the grants it needs
// (docs: config-names of issue 3), nothing by wildcard, Secrets only by name, and only `get` on Secrets.
// Fleet mode is the one exception to "by name": its Clusters, and so their Secrets' names, are not known
// at install time (resourceNames take no patterns); it still reads Secrets by `get` alone.

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}
interface Binding {
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects: { kind: string; name: string; namespace: string }[];
}

const RBAC_KINDS = ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'];

/** Every grant as one line: "<kind> <namespace> <resource> <verbs> [names]", sorted. */
function grants(objects: K8sObject[]): string[] {
  return objects
    .filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole')
    .flatMap((role) =>
      ((role as unknown as { rules: Rule[] }).rules ?? []).flatMap((rule) =>
        (rule.resources ?? []).map((resource) => {
          const groups = (rule.apiGroups ?? []).map((g) => (g === '' ? 'core' : g)).join(',');
          const names = rule.resourceNames ? ` [${rule.resourceNames.join(',')}]` : '';
          const where = role.kind === 'Role' ? role.metadata.namespace : 'cluster';
          return `${role.kind} ${where} ${groups}/${resource} ${rule.verbs.join(',')}${names}`;
        }),
      ),
    )
    .sort();
}

function serviceAccountToken(objects: K8sObject[]): { serviceAccount: unknown; pod: unknown } {
  const sa = objects.find((o) => o.kind === 'ServiceAccount') as unknown as { automountServiceAccountToken?: boolean };
  const d = objects.find((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet') as unknown as {
    spec: { template: { spec: { automountServiceAccountToken?: boolean } } };
  };
  return { serviceAccount: sa.automountServiceAccountToken, pod: d.spec.template.spec.automountServiceAccountToken };
}

const KUBECONFIG = ciValues('kubeconfig-values.yaml');

const FLEET = ciValues('fleet-values.yaml');
const FLEET_NAMESPACE = ciValues('fleet-namespace-values.yaml');

const cases: { what: string; options: RenderOptions; expected: string[]; token: boolean; secretsByName?: false }[] = [
  { what: 'static', options: { valuesFiles: [ciValues('static-values.yaml')] }, expected: [], token: false },
  { what: 'static with monitoring and the listener options', options: { valuesFiles: [ciValues('monitoring-values.yaml')] }, expected: [], token: false },
  {
    what: 'kubeconfig in-cluster, port-forward, TLS Secret in kube-system',
    options: { valuesFiles: [KUBECONFIG] },
    expected: [
      'ClusterRole cluster core/nodes get,list',
      'Role kube-system core/pods get,list',
      'Role kube-system core/pods/portforward get,create',
      'Role kube-system core/secrets get [etcd-probe-client]',
    ],
    token: true,
  },
  {
    what: 'kubeconfig in-cluster, port-forward limited to the etcd mirror pods of the listed nodes',
    options: { valuesFiles: [KUBECONFIG], values: { kube: { portForwardNodes: ['cp-a', 'cp-b.example.internal'] } } },
    expected: [
      'ClusterRole cluster core/nodes get,list',
      'Role kube-system core/pods get,list',
      'Role kube-system core/pods/portforward get,create [etcd-cp-a,etcd-cp-b.example.internal]',
      'Role kube-system core/secrets get [etcd-probe-client]',
    ],
    token: true,
  },
  {
    what: 'kubeconfig in-cluster, direct (the default in-cluster): no port-forward',
    options: { valuesFiles: [KUBECONFIG], set: { 'kube.connect': '' } },
    expected: ['ClusterRole cluster core/nodes get,list', 'Role kube-system core/pods get,list', 'Role kube-system core/secrets get [etcd-probe-client]'],
    token: true,
  },
  {
    what: 'kubeconfig in-cluster, direct, TLS Secret in its own namespace',
    options: { valuesFiles: [KUBECONFIG], set: { 'kube.connect': 'direct', 'kubeconfig.tlsSecret.namespace': 'etcd-creds' } },
    expected: ['ClusterRole cluster core/nodes get,list', 'Role etcd-creds core/secrets get [etcd-probe-client]', 'Role kube-system core/pods get,list'],
    token: true,
  },
  {
    what: 'kubeconfig in-cluster, TLS mounted instead of read: no Secret access at all',
    options: { valuesFiles: [KUBECONFIG], set: { 'kubeconfig.tlsSecret.name': '', 'etcdTLS.existingSecret': 'etcd-client' } },
    expected: ['ClusterRole cluster core/nodes get,list', 'Role kube-system core/pods get,list', 'Role kube-system core/pods/portforward get,create'],
    token: true,
  },
  { what: 'kubeconfig from a Secret (the kubeconfig user decides)', options: { valuesFiles: [ciValues('kubeconfig-file-values.yaml')] }, expected: [], token: false },
  {
    what: 'kubeconfig from a Secret even with connect=port-forward and a TLS Secret named',
    options: { valuesFiles: [ciValues('kubeconfig-file-values.yaml')], set: { 'kube.connect': 'port-forward', 'kubeconfig.tlsSecret.name': 'x', 'etcdTLS.existingSecret': '' } },
    expected: [],
    token: false,
  },
  {
    what: 'capi',
    options: { valuesFiles: [ciValues('capi-values.yaml')] },
    expected: ['Role clusters cluster.x-k8s.io/clusters get [prod-eu1]', 'Role clusters core/secrets get [prod-eu1-kubeconfig,prod-eu1-etcd,prod-eu1-apiserver-etcd-client]'],
    token: true,
  },
  {
    what: 'capi with port-forward (through the workload kubeconfig, not this service account)',
    options: { valuesFiles: [ciValues('capi-values.yaml')], set: { 'kube.connect': 'port-forward' } },
    expected: ['Role clusters cluster.x-k8s.io/clusters get [prod-eu1]', 'Role clusters core/secrets get [prod-eu1-kubeconfig,prod-eu1-etcd,prod-eu1-apiserver-etcd-client]'],
    token: true,
  },
  {
    what: 'fleet in every namespace: a ClusterRole',
    options: { valuesFiles: [FLEET] },
    expected: ['ClusterRole cluster cluster.x-k8s.io/clusters list', 'ClusterRole cluster core/secrets get'],
    token: true,
    secretsByName: false,
  },
  {
    what: 'fleet in one namespace: a Role there, nothing cluster-wide',
    options: { valuesFiles: [FLEET_NAMESPACE] },
    expected: ['Role clusters cluster.x-k8s.io/clusters list', 'Role clusters core/secrets get'],
    token: true,
    secretsByName: false,
  },
  {
    what: 'fleet with connect=port-forward (through each workload kubeconfig, not this service account)',
    options: { valuesFiles: [FLEET_NAMESPACE], set: { 'kube.connect': 'port-forward', 'fleet.namespace': 'capi-prod' } },
    expected: ['Role capi-prod cluster.x-k8s.io/clusters list', 'Role capi-prod core/secrets get'],
    token: true,
    secretsByName: false,
  },
];

describe('RBAC per mode', () => {
  describe.each(cases)('$what', ({ options, expected, token, secretsByName }) => {
    const objects = render(options);

    it('grants exactly what the mode needs', () => {
      expect(grants(objects)).toEqual(expected);
    });

    it('mounts a service account token only when the mode calls an API server with it', () => {
      expect(serviceAccountToken(objects)).toEqual({ serviceAccount: token, pod: token });
    });

    it('creates no RBAC objects at all when nothing is granted', () => {
      if (expected.length === 0) expect(objects.filter((o) => RBAC_KINDS.includes(o.kind))).toEqual([]);
      else expect(objects.some((o) => o.kind.endsWith('Binding'))).toBe(true);
    });

    it('uses no wildcard, no non-resource URL, reads Secrets by get alone, and names each one it may read (fleet mode cannot)', () => {
      for (const role of objects.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole')) {
        for (const rule of (role as unknown as { rules: Rule[] }).rules) {
          expect([...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...rule.verbs, ...(rule.resourceNames ?? [])]).not.toContain('*');
          expect(rule.nonResourceURLs).toBeUndefined();
          if (rule.resources?.includes('secrets')) {
            // Never list or watch: a Secret is read only by asking for it by name.
            expect(rule.verbs).toEqual(['get']);
            if (secretsByName === false) expect(rule.resourceNames).toBeUndefined();
            else expect(rule.resourceNames?.length ?? 0).toBeGreaterThan(0);
          }
        }
      }
    });

    it('binds each role, and only to this release service account', () => {
      const sa = objects.find((o) => o.kind === 'ServiceAccount') as K8sObject;
      for (const binding of objects.filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding')) {
        const { roleRef, subjects } = binding as unknown as Binding;
        const role = objects.find((o) => o.kind === roleRef.kind && o.metadata.name === roleRef.name);
        expect(role, `${binding.kind} ${binding.metadata.name} refers to a rendered ${roleRef.kind}`).toBeDefined();
        expect(roleRef.kind).toBe(binding.kind === 'RoleBinding' ? 'Role' : 'ClusterRole');
        if (binding.kind === 'RoleBinding') expect(binding.metadata.namespace).toBe(role?.metadata.namespace);
        expect(subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: 'probes' }]);
      }
    });
  });

  it.each([
    ['capi', { valuesFiles: [ciValues('capi-values.yaml')] }],
    ['fleet', { valuesFiles: [FLEET] }],
    ['kubeconfig with connect=direct', { valuesFiles: [KUBECONFIG], set: { 'kube.connect': 'direct' } }],
  ] as [string, RenderOptions][])('refuses kube.portForwardNodes in %s, where the chart grants no port-forward it could limit', (_mode, options) => {
    for (const { helm, message } of renderFailures({ ...options, values: { kube: { portForwardNodes: ['cp-a'] } } })) {
      expect(message, helm).toContain('kube.portForwardNodes: it limits the pods/portforward grant of kubeconfig mode in-cluster');
    }
  });

  it.each([
    ['kubeconfig', [KUBECONFIG], 6],
    ['capi', [ciValues('capi-values.yaml')], 2],
    ['fleet (cluster-wide)', [FLEET], 2],
    ['fleet (one namespace)', [FLEET_NAMESPACE], 2],
  ] as [string, string[], number][])('names the %s RBAC objects per release namespace, so two installs do not collide', (_mode, valuesFiles, count) => {
    const ids = (namespace: string) =>
      render({ valuesFiles, namespace })
        .filter((o) => RBAC_KINDS.includes(o.kind))
        .map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    const a = ids('team-a');
    expect(a).toHaveLength(count);
    expect(a.filter((id) => ids('team-b').includes(id))).toEqual([]);
  });
});
