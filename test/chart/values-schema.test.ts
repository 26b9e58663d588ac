import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { CHART_DIR } from '../helpers/chart-render.ts';
import { chartValues, coalesce, type Values } from '../helpers/chart-values.ts';

// Helm 3 validates the merged values (chart defaults, then -f files, then --set) against
// values.schema.json with a draft-07 validator; ajv's default class is draft-07 too.

const schema: unknown = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
const validate = ajv.compile(schema as object);
const defaults = chartValues('values.yaml');
const ciFiles = readdirSync(join(CHART_DIR, 'ci')).filter((f) => f.endsWith('.yaml'));
const SELECTOR_PATTERN = (schema as { properties: { fleet: { properties: { selector: { pattern: string } } } } }).properties.fleet.properties.selector.pattern;

function problems(values: Values): string[] {
  if (validate(values)) return [];
  // Drop ajv's "must match then schema" summaries: the specific error beside them names the value.
  return (validate.errors ?? [])
    .filter((e: ErrorObject) => e.keyword !== 'if')
    .map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''}${e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : ''}`);
}

/** The default values with a change applied, as `-f` would apply it. */
function withChange(change: Values): Values {
  return coalesce(defaults, change);
}

describe('values.schema.json', () => {
  it('declares draft-07, which every Helm 3 validates', () => {
    expect((schema as { $schema: string }).$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('accepts values.yaml with a static endpoint (the one value the defaults cannot know)', () => {
    expect(problems(withChange({ static: { endpoints: ['https://10.0.0.1:2379'] } }))).toEqual([]);
  });

  it('accepts values.yaml alone, so that `helm lint` passes with no values (the templates refuse static mode without endpoints)', () => {
    expect(problems(defaults)).toEqual([]);
  });

  it('has one example per mode under chart/ci/', () => {
    expect(ciFiles).toEqual(expect.arrayContaining(['static-values.yaml', 'kubeconfig-values.yaml', 'capi-values.yaml', 'fleet-values.yaml']));
    const modes = ciFiles.map((f) => chartValues(join('ci', f)).mode);
    expect(new Set(modes)).toEqual(new Set(['static', 'kubeconfig', 'capi', 'fleet']));
  });

  it.each(ciFiles)('accepts ci/%s merged over values.yaml', (file) => {
    expect(problems(withChange(chartValues(join('ci', file))))).toEqual([]);
  });

  const bad: [string, Values, string][] = [
    ['an unknown mode', { mode: 'bogus' }, '/mode must be equal to one of the allowed values'],
    ['negative replicas', { replicaCount: -1, static: { endpoints: ['http://e:2379'] } }, '/replicaCount must be >= 0'],
    ['replicas as text', { replicaCount: 'two', static: { endpoints: ['http://e:2379'] } }, '/replicaCount must be integer'],
    ['a misspelt top-level key', { replicas: 2, static: { endpoints: ['http://e:2379'] } }, '/ must NOT have additional properties (replicas)'],
    ['an endpoint without a scheme', { static: { endpoints: ['10.0.0.1:2379'] } }, '/static/endpoints/0 must match pattern "^(https?|unix|unixs)://[^\\s,]+$"'],
    ['capi without a Cluster name', { mode: 'capi', capi: { cluster: { namespace: 'clusters', name: '' } } }, '/capi/cluster/name must NOT have fewer than 1 characters'],
    ['capi with a Cluster name that is no DNS label', { mode: 'capi', capi: { cluster: { namespace: 'clusters', name: 'Prod_EU' } } }, '/capi/cluster/name must match pattern "^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"'],
    ['a kubeconfig from nowhere', { mode: 'kubeconfig', kubeconfig: { inCluster: false } }, '/kubeconfig/existingSecret must NOT have fewer than 1 characters'],
    ['an unknown connect method', { mode: 'kubeconfig', kube: { connect: 'tunnel' } }, '/kube/connect must be equal to one of the allowed values'],
    ['a duration without a unit', { static: { endpoints: ['http://e:2379'] }, config: { timeout: '2' } }, '/config/timeout must match pattern "^$|^(\\d+(\\.\\d+)?(ms|s|m|h))+$"'],
    ['an unknown policy', { static: { endpoints: ['http://e:2379'] }, config: { policy: 'lenient' } }, '/config/policy must be equal to one of the allowed values'],
    ['a writable root filesystem', { static: { endpoints: ['http://e:2379'] }, securityContext: { readOnlyRootFilesystem: false } }, '/securityContext/readOnlyRootFilesystem must be equal to constant'],
    ['privilege escalation', { static: { endpoints: ['http://e:2379'] }, securityContext: { allowPrivilegeEscalation: true } }, '/securityContext/allowPrivilegeEscalation must be equal to constant'],
    ['root', { static: { endpoints: ['http://e:2379'] }, podSecurityContext: { runAsUser: 0 } }, '/podSecurityContext/runAsUser must be >= 1'],
    ['added capabilities', { static: { endpoints: ['http://e:2379'] }, securityContext: { capabilities: { drop: ['ALL'], add: ['NET_ADMIN'] } } }, '/securityContext/capabilities/add must NOT have more than 0 items'],
    ['a port out of range', { static: { endpoints: ['http://e:2379'] }, service: { port: 70000 } }, '/service/port must be <= 65535'],
    ['direct connect in capi mode (it always port-forwards)', { mode: 'capi', capi: { cluster: { namespace: 'c', name: 'n' } }, kube: { connect: 'direct' } }, '/kube/connect must be equal to one of the allowed values'],
    ['mounted etcd TLS in capi mode', { mode: 'capi', capi: { cluster: { namespace: 'c', name: 'n' } }, etcdTLS: { existingSecret: 'etcd-client' } }, '/etcdTLS/existingSecret must NOT have more than 0 characters'],
    ['etcd TLS from two places', { mode: 'kubeconfig', kubeconfig: { tlsSecret: { name: 'etcd-probe-client' } }, etcdTLS: { existingSecret: 'etcd-client' } }, '/etcdTLS/existingSecret must NOT have more than 0 characters'],
    ['discover outside static mode', { mode: 'kubeconfig', config: { discover: true } }, '/config/discover must be null'],
    ['a misspelt listener key', { static: { endpoints: ['http://e:2379'] }, listener: { authTokn: {} } }, '/listener must NOT have additional properties (authTokn)'],
    ['a fleet namespace of * (empty means every namespace)', { mode: 'fleet', fleet: { namespace: '*' } }, '/fleet/namespace must match pattern "^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"'],
    ['a set-based fleet selector (the service takes equality terms only)', { mode: 'fleet', fleet: { selector: 'env in (prod,staging)' } }, `/fleet/selector must match pattern "${SELECTOR_PATTERN}"`],
    ['a misspelt fleet key', { mode: 'fleet', fleet: { namepsace: 'clusters' } }, '/fleet must NOT have additional properties (namepsace)'],
    ['a fleet refresh without a unit', { mode: 'fleet', fleet: { refresh: '30' } }, '/fleet/refresh must match pattern "^$|^(\\d+(\\.\\d+)?(ms|s|m|h))+$"'],
    ['no rounds in flight', { mode: 'fleet', fleet: { maxRoundsInFlight: 0 } }, '/fleet/maxRoundsInFlight must be >= 1'],
    ['fleet mode with one Cluster named', { mode: 'fleet', capi: { cluster: { namespace: '', name: 'prod-eu1' } } }, '/capi/cluster/name must NOT have more than 0 characters'],
    ['fleet mode with more shards than the service takes', { mode: 'fleet', replicaCount: 1001 }, '/replicaCount must be <= 1000'],
    ['direct connect in fleet mode', { mode: 'fleet', kube: { connect: 'direct' } }, '/kube/connect must be equal to one of the allowed values'],
    ['mounted etcd TLS in fleet mode', { mode: 'fleet', etcdTLS: { existingSecret: 'etcd-client' } }, '/etcdTLS/existingSecret must NOT have more than 0 characters'],
    ['discover in fleet mode', { mode: 'fleet', config: { discover: false } }, '/config/discover must be null'],
  ];
  it.each(bad)('rejects %s with a message naming the value', (_what, change, expected) => {
    expect(problems(withChange(change))).toEqual([expected]);
  });
});
