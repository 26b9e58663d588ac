import { X509Certificate, createPrivateKey } from 'node:crypto';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import { KubeError } from './kube-error.ts';
import { parseKubeconfigYaml, type KubeconfigYaml } from './kubeconfig-yaml.ts';

type Path = readonly (string | number)[];

const ONLY = 'allowed are server (https), certificate-authority-data, client-certificate-data with client-key-data, and token';

// Why a field that client-node would honour is refused in a kubeconfig that someone else wrote.
const REFUSED: Readonly<Record<string, string>> = {
  exec: 'it would run a command',
  'auth-provider': 'it would run a plugin or read local files',
  'token-file': 'it would read a local file',
  tokenFile: 'it would read a local file',
  'client-certificate': 'it would read a local file',
  'client-key': 'it would read a local file',
  'certificate-authority': 'it would read a local file',
  'insecure-skip-tls-verify': "it would stop verifying the API server's certificate",
  'proxy-url': 'it would send the traffic through a proxy',
  'tls-server-name': "it would verify the API server's certificate for another name",
  username: 'basic authentication is not used',
  password: 'basic authentication is not used',
  as: 'impersonation is not used',
  'as-groups': 'impersonation is not used',
  'as-uid': 'impersonation is not used',
  'as-user-extra': 'impersonation is not used',
};

const TOP_LEVEL = new Set(['apiVersion', 'kind', 'clusters', 'contexts', 'users', 'current-context', 'preferences']);
const CLUSTER_FIELDS = new Set(['server', 'certificate-authority-data']);
const USER_FIELDS = new Set(['client-certificate-data', 'client-key-data', 'token']);
const CONTEXT_FIELDS = new Set(['cluster', 'user', 'namespace']);

function pathText(path: Path): string {
  if (path.length === 0) return 'the kubeconfig';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/**
 * Checks a kubeconfig read from a Secret and reports every problem by field path and line, never by
 * value. Nothing in it is executed, read from disk or sent anywhere before it has passed.
 */
class Checker {
  readonly #yaml: KubeconfigYaml;
  readonly #label: string;

  constructor(yaml: KubeconfigYaml, label: string) {
    this.#yaml = yaml;
    this.#label = label;
  }

  fail(path: Path, problem: string): never {
    const line = path.length === 0 ? null : this.#yaml.lineOf(path);
    throw new KubeError('invalid-secret', `${this.#label}: ${pathText(path)}${line === null ? '' : ` (line ${line})`} ${problem}`);
  }

  mapping(value: unknown, path: Path, allowed: ReadonlySet<string>): Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) this.fail(path, 'must be a mapping');
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (allowed.has(key)) continue;
      const why = REFUSED[key];
      if (why) this.fail([...path, key], `is not allowed in a kubeconfig read from a Secret (${why}); ${ONLY}`);
      // A key that is no field client-node knows is not quoted (it could be anything): its line says where.
      const line = this.#yaml.lineOf([...path, key]);
      this.fail(path, `has a field${line === null ? '' : ` on line ${line}`} that a kubeconfig read from a Secret may not carry; ${ONLY}`);
    }
    return record;
  }

  sequence(value: unknown, path: Path): unknown[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) this.fail(path, 'must be a list');
    return value;
  }

  text(value: unknown, path: Path, required = true): string | undefined {
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value === '') this.fail(path, 'must be a non-empty string');
    return value;
  }

  /** Checks a list of `{name, <kind>: {...}}` entries (clusters, users, contexts) and reads each. */
  named<T>(items: unknown[], kind: string, inner: ReadonlySet<string>, read: (fields: Record<string, unknown>, path: Path) => T): { name: string; value: T }[] {
    return items.map((item, i) => {
      const entry = this.mapping(item, [`${kind}s`, i], new Set(['name', kind]));
      const name = this.text(entry.name, [`${kind}s`, i, 'name']) as string;
      const fields = this.mapping(entry[kind] ?? {}, [`${kind}s`, i, kind], inner);
      return { name, value: read(fields, [`${kind}s`, i, kind]) };
    });
  }
}

function checkServer(c: Checker, value: unknown, path: Path): string {
  const text = c.text(value, path) as string;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return c.fail(path, 'is not a URL');
  }
  if (url.protocol !== 'https:') c.fail(path, 'must be an https:// URL (the API server is never reached in clear text)');
  if (url.username || url.password) c.fail(path, 'must not carry credentials');
  if (url.search || url.hash) c.fail(path, 'must not have a query or fragment');
  return `${url.origin}${url.pathname.replace(/\/$/, '')}`;
}

function base64Field(c: Checker, value: unknown, path: Path, what: 'certificate' | 'key'): string {
  const text = c.text(value, path) as string;
  const decoded = Buffer.from(text, 'base64');
  try {
    if (what === 'certificate') new X509Certificate(decoded);
    else createPrivateKey(decoded);
  } catch {
    // The parser's message could quote bytes of the key: say only what it is not.
    c.fail(path, `is not base64 of a PEM ${what === 'certificate' ? 'certificate' : 'private key'}`);
  } finally {
    if (what === 'key') decoded.fill(0);
  }
  return text;
}

/**
 * Loads a kubeconfig that someone other than the operator wrote (Cluster API's `<cluster>-kubeconfig`):
 * it may carry only an https `server`, `certificate-authority-data`, and client certificate and key
 * data or a token. Anything client-node would execute or read (`exec`, `auth-provider`, `token-file`,
 * file paths) or that weakens TLS (`insecure-skip-tls-verify`, `proxy-url`, http) is refused with a
 * KubeError naming the field; client-node gets only the checked fields.
 */
export function kubeconfigFromSecret(text: string, label: string): KubeConfig {
  const yaml = parseKubeconfigYaml(text, label, 'invalid-secret');
  // Typed, so that TypeScript narrows after c.fail (which never returns).
  const c: Checker = new Checker(yaml, label);
  const top = c.mapping(yaml.data, [], TOP_LEVEL);
  const clusters = c.named(c.sequence(top.clusters, ['clusters']), 'cluster', CLUSTER_FIELDS, (f, p) => ({
    server: checkServer(c, f.server, [...p, 'server']),
    caData: f['certificate-authority-data'] === undefined ? undefined : base64Field(c, f['certificate-authority-data'], [...p, 'certificate-authority-data'], 'certificate'),
  }));
  const users = c.named(c.sequence(top.users, ['users']), 'user', USER_FIELDS, (f, p) => {
    const hasCert = f['client-certificate-data'] !== undefined;
    if (hasCert !== (f['client-key-data'] !== undefined)) c.fail(p, 'needs client-certificate-data and client-key-data together');
    return {
      certData: hasCert ? base64Field(c, f['client-certificate-data'], [...p, 'client-certificate-data'], 'certificate') : undefined,
      keyData: hasCert ? base64Field(c, f['client-key-data'], [...p, 'client-key-data'], 'key') : undefined,
      token: c.text(f.token, [...p, 'token'], false),
    };
  });
  const contexts = c.named(c.sequence(top.contexts, ['contexts']), 'context', CONTEXT_FIELDS, (f, p) => ({
    cluster: c.text(f.cluster, [...p, 'cluster']) as string,
    user: c.text(f.user, [...p, 'user']) as string,
    namespace: c.text(f.namespace, [...p, 'namespace'], false),
  }));
  const current = c.text(top['current-context'], ['current-context']) as string;
  const context = contexts.find((x) => x.name === current);
  if (!context) c.fail(['current-context'], 'names no context of the kubeconfig');
  if (!clusters.some((x) => x.name === context.value.cluster)) c.fail(['current-context'], 'names a context whose cluster is not in the kubeconfig');
  if (!users.some((x) => x.name === context.value.user)) c.fail(['current-context'], 'names a context whose user is not in the kubeconfig');

  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: clusters.map(({ name, value }): Cluster => ({ name, server: value.server, skipTLSVerify: false, ...(value.caData ? { caData: value.caData } : {}) })),
    users: users.map(({ name, value }): User => ({ name, ...(value.certData ? { certData: value.certData, keyData: value.keyData } : {}), ...(value.token ? { token: value.token } : {}) })),
    contexts: contexts.map(({ name, value }): Context => ({ name, cluster: value.cluster, user: value.user, ...(value.namespace ? { namespace: value.namespace } : {}) })),
    currentContext: current,
  });
  return kc;
}
