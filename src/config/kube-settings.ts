import { CONNECTS } from './config.ts';
import type { SettingGroup } from './setting.ts';
import { parseCapiTarget, parseCidrList, parseDuration, parseInteger, parseKubeconfigRef, parseLabelSelector, parseObjectRef, parseOneOf } from './value-parsers.ts';

/** What a tenant's kubeconfig may never reach: this host, "this network", and link-local (169.254.169.254 is cloud metadata). */
export const DEFAULT_DENY_CIDRS = '127.0.0.0/8,::1/128,0.0.0.0/8,::/128,169.254.0.0/16,fe80::/10';

/** The settings of the Kubernetes modes (kubeconfig and Cluster API), in help order. */
export const KUBE_SETTINGS = {
  kubeconfig: {
    key: 'kubeconfig',
    env: 'ETCD_PROBE_KUBECONFIG',
    flag: 'kubeconfig',
    fallback: null,
    absent: null,
    help: "workload cluster's kubeconfig file, or in-cluster: find etcd through its control-plane nodes and etcd pods",
    parse: parseKubeconfigRef,
  },
  nodeSelector: {
    key: 'nodeSelector',
    env: 'ETCD_PROBE_NODE_SELECTOR',
    flag: 'node-selector',
    fallback: 'node-role.kubernetes.io/control-plane',
    help: 'label selector of the control-plane nodes (the default also matches node-role.kubernetes.io/master)',
    parse: parseLabelSelector,
  },
  connect: {
    key: 'connect',
    env: 'ETCD_PROBE_CONNECT',
    flag: 'connect',
    fallback: null,
    absent: null,
    help: "how to reach members in kubeconfig mode: port-forward (through the API server) or direct (node InternalIP:2379); default direct in-cluster, else port-forward",
    parse: (raw) => parseOneOf(raw, CONNECTS),
  },
  tlsSecret: {
    key: 'tlsSecret',
    env: 'ETCD_PROBE_TLS_SECRET',
    flag: 'tls-secret',
    fallback: null,
    absent: null,
    help: "namespace/name of a Secret in the workload cluster holding etcd client TLS (ca.crt, tls.crt, tls.key)",
    parse: parseObjectRef,
  },
  capiCluster: {
    key: 'capiCluster',
    env: 'ETCD_PROBE_CAPI_CLUSTER',
    flag: 'capi-cluster',
    fallback: null,
    absent: null,
    help: 'namespace/name of a Cluster API Cluster: reach its etcd the way KubeadmControlPlane does; * or namespace/* follows every Cluster (fleet mode)',
    parse: parseCapiTarget,
  },
  capiSelector: {
    key: 'capiSelector',
    env: 'ETCD_PROBE_CAPI_SELECTOR',
    flag: 'capi-selector',
    fallback: null,
    absent: null,
    help: 'Cluster API fleet (ETCD_PROBE_CAPI_CLUSTER=* or namespace/*): the label selector the Clusters must match',
    parse: parseLabelSelector,
  },
  denyCidrs: {
    key: 'denyCidrs',
    env: 'ETCD_PROBE_DENY_CIDRS',
    flag: 'deny-cidrs',
    fallback: DEFAULT_DENY_CIDRS,
    help: "Cluster API mode: comma-separated CIDRs never connected to with a workload kubeconfig from a Secret, checked after DNS (none: no list); the default denies loopback, 0.0.0.0/8, :: and link-local (cloud metadata)",
    parse: parseCidrList,
  },
  managementKubeconfig: {
    key: 'managementKubeconfig',
    env: 'ETCD_PROBE_MANAGEMENT_KUBECONFIG',
    flag: 'management-kubeconfig',
    fallback: null,
    absent: null,
    help: "Cluster API mode: the management cluster's kubeconfig file (default: in-cluster)",
    parse: parseKubeconfigRef,
  },
  nodeGraceMs: {
    key: 'nodeGraceMs',
    env: 'ETCD_PROBE_NODE_GRACE',
    flag: 'node-grace',
    fallback: '2m',
    help: 'how old a control-plane node must be before lacking an etcd member counts (NODE_WITHOUT_MEMBER)',
    parse: (raw) => parseDuration(raw, 0, 24 * 3_600_000),
  },
  maxMembers: {
    key: 'maxMembers',
    env: 'ETCD_PROBE_MAX_MEMBERS',
    flag: 'max-members',
    fallback: '16',
    help: 'Kubernetes modes: control-plane nodes probed at most per cluster (the first by name); more are reported as TOO_MANY_MEMBERS',
    parse: (raw) => parseInteger(raw, 1, 1000),
  },
} satisfies SettingGroup;
