import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/config/resolve-config.ts';
import { errorsOf, ok, resolve } from './load-config-helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-setting-files-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the start-up file step', () => {
  it('is separate: resolving the settings reads no file, loading them does', () => {
    const env = { ETCD_PROBE_CACERT: '/nowhere/ca.crt', ETCD_PROBE_KUBECONFIG: '/nowhere/kubeconfig', ETCD_PROBE_AUTH_TOKEN_FILE: '/nowhere/token' };
    const resolution = resolveSettings({ env, argv: [] });
    expect(resolution.errors).toEqual([]);
    expect(resolution.settings.kubeconfig).toEqual({ kind: 'file', path: '/nowhere/kubeconfig' });
    expect(errorsOf(resolve(env))).toEqual([
      'ETCD_PROBE_KUBECONFIG: cannot read /nowhere/kubeconfig: no such file',
      'ETCD_PROBE_CACERT: cannot read /nowhere/ca.crt: no such file',
      'ETCD_PROBE_AUTH_TOKEN_FILE: cannot read /nowhere/token: no such file',
    ]);
  });

  it('reports the files after the settings that are wrong on their own, all in one run', () => {
    expect(errorsOf(resolve({ ETCD_PROBE_POLICY: 'lenient', ETCD_PROBE_CERT: '/nowhere/c.crt', ETCD_PROBE_KEY: '/nowhere/c.key' }))).toEqual([
      "ETCD_PROBE_POLICY: 'lenient' is not one of quorum, strict",
      'ETCD_PROBE_CERT: cannot read /nowhere/c.crt: no such file',
      'ETCD_PROBE_KEY: cannot read /nowhere/c.key: no such file',
    ]);
  });

  it('names an unreadable management kubeconfig of Cluster API mode instead of failing itself', () => {
    // Before the typed resolution, a management kubeconfig that failed to decode stayed undefined, and the
    // in-cluster rule read .kind of it: a TypeError instead of this message.
    expect(errorsOf(resolve({ ETCD_PROBE_CAPI_CLUSTER: 'default/w', ETCD_PROBE_MANAGEMENT_KUBECONFIG: '/nowhere/management' }))).toEqual([
      'ETCD_PROBE_MANAGEMENT_KUBECONFIG: cannot read /nowhere/management: no such file',
    ]);
    expect(errorsOf(resolve({ ETCD_PROBE_CAPI_CLUSTER: 'default/w' }, ['--management-kubeconfig=']))).toEqual(['--management-kubeconfig: cannot read : no such file']);
  });

  it('takes a readable kubeconfig', () => {
    expect(ok(resolve({ ETCD_PROBE_KUBECONFIG: kubeconfig })).config.kubeconfig).toEqual({ kind: 'file', path: kubeconfig });
  });
});
