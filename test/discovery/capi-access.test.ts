import { createHash, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CapiAccess } from '../../src/discovery/capi-access.ts';
import type { KubeConnection } from '../../src/kube/kube-connection.ts';
import type { ApiEndpoint } from '../../src/config/config.ts';
import { KubeError } from '../../src/kube/kube-error.ts';
import { MINTED_VALIDITY_MS } from '../../src/tls/mint-client-certificate.ts';
import { makeCa } from '#lab/certs/pki.ts';

// CapiAccess's bookkeeping with a scripted management API (its only call is readSecret): when it
// mints, when it renews, when a rotated CA or kubeconfig makes a new generation. Real etcd accepting the
// minted certificate is tested in test/integration/kube-modes.test.ts.

// Each read's deadline: generous, so that a loaded machine never turns a slow key generation into a failure.
const DEADLINE_MS = 10_000;

const KUBECONFIG = (server: string) => `apiVersion: v1
kind: Config
clusters: [{ name: w, cluster: { server: '${server}' } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: c, context: { cluster: w, user: u } }]
current-context: c
`;

interface Management {
  connection: KubeConnection;
  /** Whole reads (data included), as `namespace/name`. */
  reads: string[];
  /** Reads of the Cluster object, as `namespace/name`. */
  clusterReads: string[];
  /** Metadata-only reads (resourceVersion), as `namespace/name`. */
  versionReads: string[];
  /** Every tls.key buffer handed out, to check that the access zeroed it. */
  keys: Buffer[];
}

/**
 * A scripted management API; each secret's version is its content, as a resourceVersion changes with it.
 * The Cluster's controlPlaneEndpoint follows the kubeconfig's server (as Cluster API writes them), or is fixed.
 */
function management(secrets: Map<string, Record<string, string>>, endpoint: 'follow' | ApiEndpoint | null = 'follow'): Management {
  const reads: string[] = [];
  const clusterReads: string[] = [];
  const versionReads: string[] = [];
  const keys: Buffer[] = [];
  const missing = (namespace: string, name: string) =>
    new KubeError('not-found', `read secret ${namespace}/${name}: secrets "${name}" not found (HTTP 404 from https://management:6443)`, 404);
  const connection = {
    server: 'https://management:6443',
    async readSecret(namespace: string, name: string): Promise<ReadonlyMap<string, Buffer>> {
      reads.push(`${namespace}/${name}`);
      const data = secrets.get(name);
      if (!data) throw missing(namespace, name);
      const decoded = new Map(Object.entries(data).map(([k, v]) => [k, Buffer.from(v)]));
      if (decoded.has('tls.key')) keys.push(decoded.get('tls.key')!);
      return decoded;
    },
    async readSecretVersion(namespace: string, name: string): Promise<string> {
      versionReads.push(`${namespace}/${name}`);
      const data = secrets.get(name);
      if (!data) throw missing(namespace, name);
      // A digest of the content, as a resourceVersion changes with every write (a length and a tail did
      // not: two CAs of equal size made the same 'version' now and then).
      return createHash('sha256').update(JSON.stringify(data)).digest('hex').slice(0, 16);
    },
    async readCapiCluster(namespace: string, name: string) {
      clusterReads.push(`${namespace}/${name}`);
      if (endpoint !== 'follow') return { namespace, name, controlPlaneEndpoint: endpoint };
      const server = /server: '([^']*)'/.exec(secrets.get(`${name}-kubeconfig`)?.value ?? '')?.[1];
      const url = server ? new URL(server) : null;
      return { namespace, name, controlPlaneEndpoint: url ? { host: url.hostname, port: Number(url.port || 443) } : null };
    },
  } as unknown as KubeConnection;
  return { connection, reads, clusterReads, versionReads, keys };
}

describe('CapiAccess', () => {
  it('mints once, keeps the certificate between refreshes, and renews it two thirds into its validity', async () => {
    const ca = await makeCa('etcd-ca');
    const secrets = new Map<string, Record<string, string>>([
      ['w1-kubeconfig', { value: KUBECONFIG('https://workload:6443') }],
      ['w1-etcd', { 'tls.crt': ca.cert, 'tls.key': ca.key }],
    ]);
    const { connection, reads, versionReads, keys } = management(secrets);
    let now = Date.parse('2026-12-02T00:00:00Z');
    const access = new CapiAccess({ management: connection, cluster: { namespace: 'default', name: 'w1' }, refreshMs: 60_000, now: () => now });

    const first = await access.resolve(DEADLINE_MS);
    expect(first.generation).toBe(1);
    expect(first.connection.server).toBe('https://workload:6443');
    expect(new X509Certificate(first.tls.cert!).checkIssued(new X509Certificate(ca.cert))).toBe(true);
    expect(first.tls.ca?.toString()).toBe(ca.cert);
    expect(reads).toEqual(['default/w1-kubeconfig', 'default/w1-etcd']);
    expect(versionReads).toEqual(['default/w1-etcd']);

    now += 30_000; // within the refresh interval: nothing is read, nothing changes
    expect(await access.resolve(DEADLINE_MS)).toBe(first);
    expect(reads).toHaveLength(2);

    now += 60_000; // refreshed: the kubeconfig is re-read, <name>-etcd only by its version (its key stays on the server)
    expect(await access.resolve(DEADLINE_MS)).toBe(first);
    expect(reads).toEqual(['default/w1-kubeconfig', 'default/w1-etcd', 'default/w1-kubeconfig']);
    expect(versionReads).toHaveLength(2);

    now = Date.parse('2026-12-02T00:00:00Z') + (MINTED_VALIDITY_MS * 2) / 3 + 1; // renewal due: the key is read to mint
    const renewed = await access.resolve(DEADLINE_MS);
    expect(reads.filter((r) => r === 'default/w1-etcd')).toHaveLength(2);
    // Every copy of the CA key handed over was zeroed once the certificate was minted.
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key.every((byte) => byte === 0)).toBe(true);
    expect(renewed.generation).toBe(2);
    expect(renewed.tls.cert?.equals(first.tls.cert!)).toBe(false);
    expect(Date.parse(new X509Certificate(renewed.tls.cert!).validTo)).toBeGreaterThan(Date.parse(new X509Certificate(first.tls.cert!).validTo));
  });

  it('reads <name>-etcd whole when it changed, keeps the certificate while the CA is the same, and zeroes the key read', async () => {
    const ca = await makeCa('etcd-ca');
    const secrets = new Map<string, Record<string, string>>([
      ['w1-kubeconfig', { value: KUBECONFIG('https://workload:6443') }],
      ['w1-etcd', { 'tls.crt': ca.cert, 'tls.key': ca.key }],
    ]);
    const { connection, reads, keys } = management(secrets);
    let now = Date.parse('2026-12-02T00:00:00Z');
    const access = new CapiAccess({ management: connection, cluster: { namespace: 'default', name: 'w1' }, refreshMs: 1000, now: () => now });
    const first = await access.resolve(DEADLINE_MS);
    // Relabelled, same CA: a new version, so it is read whole, but nothing is minted.
    secrets.set('w1-etcd', { 'tls.crt': ca.cert, 'tls.key': ca.key, note: 'relabelled' });
    now += 2000;
    expect(await access.resolve(DEADLINE_MS)).toBe(first);
    expect(reads.filter((r) => r === 'default/w1-etcd')).toHaveLength(2);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key.every((byte) => byte === 0)).toBe(true);
  });

  it('makes a new generation when the CA or the kubeconfig rotates', async () => {
    const ca = await makeCa('etcd-ca');
    const secrets = new Map<string, Record<string, string>>([
      ['w1-kubeconfig', { value: KUBECONFIG('https://workload:6443') }],
      ['w1-etcd', { 'tls.crt': ca.cert, 'tls.key': ca.key }],
    ]);
    const { connection } = management(secrets);
    let now = Date.parse('2026-12-02T00:00:00Z');
    const access = new CapiAccess({ management: connection, cluster: { namespace: 'default', name: 'w1' }, refreshMs: 1000, now: () => now });
    const first = await access.resolve(DEADLINE_MS);

    const rotated = await makeCa('etcd-ca-2');
    secrets.set('w1-etcd', { 'tls.crt': rotated.cert, 'tls.key': rotated.key });
    now += 2000;
    const second = await access.resolve(DEADLINE_MS);
    expect(second.generation).toBe(first.generation + 1);
    expect(new X509Certificate(second.tls.cert!).checkIssued(new X509Certificate(rotated.cert))).toBe(true);

    secrets.set('w1-kubeconfig', { value: KUBECONFIG('https://moved:6443') });
    now += 2000;
    const third = await access.resolve(DEADLINE_MS);
    expect(third.generation).toBe(second.generation + 1);
    expect(third.connection.server).toBe('https://moved:6443');
    expect(third.tls).toBe(second.tls);
  });

  it('names the secret and key at fault', async () => {
    const ca = await makeCa('etcd-ca');
    const other = await makeCa('other');
    const cases: [Map<string, Record<string, string>>, RegExp][] = [
      [new Map([['w1-etcd', { 'tls.crt': ca.cert, 'tls.key': ca.key }]]), /read secret default\/w1-kubeconfig: secrets "w1-kubeconfig" not found/],
      [new Map<string, Record<string, string>>([['w1-kubeconfig', { other: 'x' }], ['w1-etcd', { 'tls.crt': ca.cert, 'tls.key': ca.key }]]), /secret default\/w1-kubeconfig: key value is missing or empty/],
      [new Map<string, Record<string, string>>([['w1-kubeconfig', { value: KUBECONFIG('https://w:6443') }], ['w1-etcd', { 'tls.crt': ca.cert, 'tls.key': other.key }]]), /secret default\/w1-etcd: the CA key does not belong to the CA certificate/],
      [new Map<string, Record<string, string>>([['w1-kubeconfig', { value: KUBECONFIG('https://w:6443') }], ['w1-etcd', { 'tls.crt': ca.cert }]]), /read secret default\/w1-apiserver-etcd-client: secrets "w1-apiserver-etcd-client" not found/],
    ];
    for (const [secrets, message] of cases) {
      const access = new CapiAccess({ management: management(secrets).connection, cluster: { namespace: 'default', name: 'w1' }, refreshMs: 1000, now: Date.now });
      await expect(access.resolve(DEADLINE_MS)).rejects.toThrow(message);
    }
  });

  describe("ties the kubeconfig's server to the Cluster's controlPlaneEndpoint (issue 25, hole 1)", () => {
    const secretsFor = async (server: string) => {
      const ca = await makeCa('etcd-ca');
      return new Map<string, Record<string, string>>([
        ['w1-kubeconfig', { value: KUBECONFIG(server) }],
        ['w1-etcd', { 'tls.crt': ca.cert, 'tls.key': ca.key }],
      ]);
    };

    it('reads the Cluster for its endpoint when only its name is known, and accepts a server on it (a path after it too)', async () => {
      const m = management(await secretsFor('https://API.Example.com:6443/proxy/w1/'), { host: 'api.example.com', port: 6443 });
      const access = new CapiAccess({ management: m.connection, cluster: { namespace: 'default', name: 'w1' }, refreshMs: 1000, now: Date.now });
      expect((await access.resolve(DEADLINE_MS)).connection.server).toBe('https://api.example.com:6443/proxy/w1');
      expect(m.clusterReads).toEqual(['default/w1']);
    });

    it.each([
      ['another port', 'https://api.example.com:10250', /the server of secret default\/w1-kubeconfig \(api\.example\.com:10250\) is not Cluster default\/w1's spec\.controlPlaneEndpoint \(api\.example\.com:6443\); the cluster is not probed/],
      ['another host', 'https://169.254.169.254', /\(169\.254\.169\.254:443\) is not Cluster default\/w1's spec\.controlPlaneEndpoint \(api\.example\.com:6443\)/],
      ['an IPv6 host', 'https://[::1]:6443', /\(\[::1\]:6443\) is not/],
    ])('refuses a server on %s before reading the etcd CA key or dialling', async (_what, server, message) => {
      const m = management(await secretsFor(server), { host: 'api.example.com', port: 6443 });
      const access = new CapiAccess({ management: m.connection, cluster: { namespace: 'default', name: 'w1' }, refreshMs: 1000, now: Date.now });
      const failure = access.resolve(DEADLINE_MS);
      await expect(failure).rejects.toThrow(message);
      await expect(failure).rejects.toMatchObject({ kind: 'not-allowed' });
      // The CA key was never fetched: nothing was minted for a kubeconfig that is not used.
      expect(m.reads).toEqual(['default/w1-kubeconfig']);
    });

    it('refuses every server when the Cluster has no endpoint', async () => {
      const m = management(await secretsFor('https://api.example.com:6443'), null);
      const access = new CapiAccess({ management: m.connection, cluster: { namespace: 'default', name: 'w1' }, refreshMs: 1000, now: Date.now });
      await expect(access.resolve(DEADLINE_MS)).rejects.toThrow(/Cluster default\/w1 has no valid spec\.controlPlaneEndpoint/);
    });

    it("uses the listed endpoint of a fleet's entry without reading the Cluster, and follows a Secret changed back and forth", async () => {
      const secrets = await secretsFor('https://api.example.com:6443');
      const m = management(secrets, null);
      let now = 0;
      const cluster = { namespace: 'default', name: 'w1', controlPlaneEndpoint: { host: 'api.example.com', port: 6443 } };
      const access = new CapiAccess({ management: m.connection, cluster, refreshMs: 1000, now: () => now });
      const first = await access.resolve(DEADLINE_MS);
      secrets.set('w1-kubeconfig', { value: KUBECONFIG('https://10.0.0.9:6443') });
      now += 2000;
      await expect(access.resolve(DEADLINE_MS)).rejects.toMatchObject({ kind: 'not-allowed' });
      now += 2000; // still refused a round later: the mismatch is read again, not cached as good
      await expect(access.resolve(DEADLINE_MS)).rejects.toMatchObject({ kind: 'not-allowed' });
      secrets.set('w1-kubeconfig', { value: KUBECONFIG('https://api.example.com:6443') });
      now += 2000;
      expect(await access.resolve(DEADLINE_MS)).toBe(first);
      expect(m.clusterReads).toEqual([]);
    });
  });
});
