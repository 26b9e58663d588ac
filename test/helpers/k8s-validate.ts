import * as k8s from '@kubernetes/client-node';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { K8sObject } from './chart-render.ts';

// Two checks, because neither is enough alone: kubernetes-models validates types, enums and required
// fields against the Kubernetes OpenAPI schemas but lets unknown fields through (as the API server's
// non-strict decoding does); the field lists of @kubernetes/client-node's generated models catch those
// (a misspelt `readOnlyRootFileSystem` would otherwise be silently dropped by the API server).

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

const MODELS: Record<string, { model: ModelClass; fields: string | null }> = {
  'v1/Secret': { model: Secret, fields: 'V1Secret' },
  'v1/Service': { model: Service, fields: 'V1Service' },
  'v1/ServiceAccount': { model: ServiceAccount, fields: 'V1ServiceAccount' },
  'apps/v1/Deployment': { model: Deployment, fields: 'V1Deployment' },
  'apps/v1/StatefulSet': { model: StatefulSet, fields: 'V1StatefulSet' },
  'policy/v1/PodDisruptionBudget': { model: PodDisruptionBudget, fields: 'V1PodDisruptionBudget' },
  'networking.k8s.io/v1/NetworkPolicy': { model: NetworkPolicy, fields: 'V1NetworkPolicy' },
  'rbac.authorization.k8s.io/v1/Role': { model: Role, fields: 'V1Role' },
  'rbac.authorization.k8s.io/v1/RoleBinding': { model: RoleBinding, fields: 'V1RoleBinding' },
  'rbac.authorization.k8s.io/v1/ClusterRole': { model: ClusterRole, fields: 'V1ClusterRole' },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { model: ClusterRoleBinding, fields: 'V1ClusterRoleBinding' },
  // Custom resources: no generated field lists exist for them in client-node.
  'monitoring.coreos.com/v1/ServiceMonitor': { model: ServiceMonitor, fields: null },
  'monitoring.coreos.com/v1/PrometheusRule': { model: PrometheusRule, fields: null },
};

/** The schema problems of one object: an unknown kind, a schema violation, or fields Kubernetes does not know. */
export function schemaProblems(object: K8sObject): string[] {
  const entry = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!entry) return [`no schema known for ${object.apiVersion} ${object.kind}`];
  const problems: string[] = [];
  try {
    new entry.model(object as never).validate();
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (entry.fields) problems.push(...unknownFields(object, entry.fields, ''));
  return problems;
}

interface AttributeType {
  readonly baseName: string;
  readonly type: string;
}
type ModelWithMap = { getAttributeTypeMap(): AttributeType[] };

const registry = k8s as unknown as Record<string, ModelWithMap | undefined>;

/** Paths of the fields of `value` that the client-node model named `type` does not declare. */
export function unknownFields(value: unknown, type: string, path: string): string[] {
  if (value === null || value === undefined) return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return [`${path}: expected a list`];
    return value.flatMap((item, i) => unknownFields(item, array[1] as string, `${path}[${i}]`));
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value !== 'object') return [`${path}: expected a map`];
    return Object.entries(value).flatMap(([k, v]) => unknownFields(v, map[1] as string, `${path}.${k}`));
  }
  const model = registry[type];
  if (!model || typeof model.getAttributeTypeMap !== 'function') return []; // scalars, IntOrString, any
  if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected an object (${type})`];
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  return Object.entries(value).flatMap(([key, child]) => {
    const childType = attributes.get(key);
    const childPath = path === '' ? key : `${path}.${key}`;
    return childType === undefined ? [`${childPath}: unknown field (${type})`] : unknownFields(child, childType, childPath);
  });
}
