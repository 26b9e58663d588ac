import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTokenFile } from '../../src/auth/bearer-token.ts';
import { FakeKubeApiServer } from '#lab/kube-apiserver/server.ts';
import { kubeTools } from '#lab/kube-tools/kube-tools.ts';
import { CHART_DIR, ciValues, render, renderNotes, type K8sObject } from '../helpers/chart-render.ts';

// The bearer token the chart generates when none is given: random, accepted by the service, wired into
// the pod and the ServiceMonitor, and kept across `helm upgrade` (lookup, tried against the stand-in).

const STATIC = ciValues('static-values.yaml');
const SECRET_NAME = 'probe-etcd-probe-token';

interface Secret {
  metadata: { name: string; namespace: string };
  type: string;
  data: Record<string, string>;
}

function tokenSecret(objects: K8sObject[]): Secret | undefined {
  return objects.find((o) => o.kind === 'Secret') as unknown as Secret | undefined;
}

function tokenOf(objects: K8sObject[]): string {
  const secret = tokenSecret(objects);
  if (!secret) throw new Error('no Secret rendered');
  return Buffer.from(secret.data.token ?? '', 'base64').toString();
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'etcd-probe-chart-token-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the generated token', () => {
  it('is a random 48-character token in an Opaque Secret of the release, new on every render without a cluster', () => {
    const first = render({ valuesFiles: [STATIC] });
    const secret = tokenSecret(first);
    expect(secret).toMatchObject({ metadata: { name: SECRET_NAME, namespace: 'probes' }, type: 'Opaque' });
    expect(Object.keys(secret?.data ?? {})).toEqual(['token']);
    expect(tokenOf(first)).toMatch(/^[A-Za-z0-9]{48}$/);
    // Random, not a value written in the chart: two renders differ.
    expect(tokenOf(render({ valuesFiles: [STATIC] }))).not.toBe(tokenOf(first));
  });

  it("passes the service's own token-file reader", () => {
    const file = join(dir, 'token');
    writeFileSync(file, tokenOf(render({ valuesFiles: [STATIC] })));
    expect(readTokenFile({ path: file, source: 'ETCD_PROBE_AUTH_TOKEN_FILE' })).toMatch(/^[A-Za-z0-9]{48}$/);
  });

  it('is mounted read-only as the token file, and the ServiceMonitor scrapes with it', () => {
    const objects = render({ valuesFiles: [STATIC], set: { 'metrics.serviceMonitor.enabled': true } });
    const pod = (objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { volumes: unknown[]; containers: { env: { name: string; value: string }[]; volumeMounts: unknown[] }[] } } };
    }).spec.template.spec;
    expect(pod.volumes).toContainEqual({ name: 'auth-token', secret: { secretName: SECRET_NAME, defaultMode: 288, items: [{ key: 'token', path: 'token' }] } });
    expect(pod.containers[0]?.volumeMounts).toContainEqual({ name: 'auth-token', mountPath: '/etc/etcd-probe/auth', readOnly: true });
    expect(pod.containers[0]?.env).toContainEqual({ name: 'ETCD_PROBE_AUTH_TOKEN_FILE', value: '/etc/etcd-probe/auth/token' });
    const monitor = objects.find((o) => o.kind === 'ServiceMonitor') as unknown as { spec: { endpoints: { authorization?: unknown }[] } };
    expect(monitor.spec.endpoints[0]?.authorization).toEqual({ type: 'Bearer', credentials: { name: SECRET_NAME, key: 'token' } });
  });

  it('is not made when a Secret is given (that one is used), nor when generate is false (no token, no authorization)', () => {
    const given = render({ valuesFiles: [STATIC], set: { 'listener.authToken.existingSecret': 'mine', 'metrics.serviceMonitor.enabled': true } });
    expect(tokenSecret(given)).toBeUndefined();
    expect(JSON.stringify(given)).toContain('"secretName":"mine"');
    const none = render({ valuesFiles: [STATIC], set: { 'listener.authToken.generate': false, 'metrics.serviceMonitor.enabled': true } });
    expect(tokenSecret(none)).toBeUndefined();
    expect(JSON.stringify(none)).not.toContain('ETCD_PROBE_AUTH_TOKEN_FILE');
    expect(JSON.stringify(none)).not.toContain('authorization');
  });

  it('is named in NOTES.txt, with how to read it', () => {
    expect(renderNotes({ valuesFiles: [STATIC] })).toContain(
      `TOKEN=$(kubectl --namespace probes get secret ${SECRET_NAME} -o jsonpath='{.data.token}' | base64 -d)`,
    );
  });
});

describe('the generated token across helm upgrade (lookup against the kube-apiserver stand-in)', () => {
  let api: FakeKubeApiServer;
  let kubeconfig: string;

  beforeAll(async () => {
    api = await FakeKubeApiServer.start();
    kubeconfig = await api.writeKubeconfig(dir, { auth: 'cert' });
  });
  afterAll(async () => {
    await api?.close();
  });

  // helm 3.17's `template --dry-run=server` runs lookup against the cluster, as an upgrade does, and
  // nothing else. helm 4's also maps every object through discovery and validates it against the
  // cluster's OpenAPI, which the stand-in does not serve; lookup itself is the same function in both.
  function renderWithCluster(): Promise<string> {
    const helm = kubeTools('v31').helm;
    const args = ['template', 'probe', CHART_DIR, '--namespace', 'probes', '-f', STATIC, '--dry-run=server', '--show-only', 'templates/token-secret.yaml'];
    return new Promise((resolve, reject) => {
      execFile(helm, args, { env: { PATH: process.env.PATH ?? '', HOME: dir, KUBECONFIG: kubeconfig }, timeout: 30_000, encoding: 'utf8' }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      );
    });
  }

  it('keeps the token of the Secret already in the cluster', async () => {
    api.upsertSecret('probes', SECRET_NAME, { token: 'TheTokenOfTheFirstInstall0123456789abcdefghijklm' });
    api.requests.length = 0;
    const text = await renderWithCluster();
    expect(text).toContain(`token: "${Buffer.from('TheTokenOfTheFirstInstall0123456789abcdefghijklm').toString('base64')}"`);
    expect(api.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toContain(`GET /api/v1/namespaces/probes/secrets/${SECRET_NAME} 200`);
  });

  it('makes a new one when the Secret is gone (how to rotate it)', async () => {
    api.removeSecret('probes', SECRET_NAME);
    const token = /token: "([^"]+)"/.exec(await renderWithCluster())?.[1] ?? '';
    expect(Buffer.from(token, 'base64').toString()).toMatch(/^[A-Za-z0-9]{48}$/);
  });
});
