import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/load-config.ts';
import { DEFAULT_DENY_CIDRS } from '../../src/config/kube-settings.ts';
import { parseCidrList } from '../../src/config/value-parsers.ts';
import { DENIED_CODE, DialGuard } from '../../src/kube/dial-guard.ts';

const guard = new DialGuard(parseCidrList(DEFAULT_DENY_CIDRS));

describe('DialGuard with the default deny list', () => {
  it.each(['127.0.0.1', '127.255.0.9', '::1', '0.0.0.0', '::', '169.254.169.254', 'fe80::1', '::ffff:127.0.0.1', '::ffff:169.254.169.254'])('denies %s', (address) => {
    expect(guard.denies(address)).toBe(true);
  });

  it.each(['10.0.0.1', '192.168.1.10', '2001:db8::1', '8.8.8.8', 'fd00::1'])('allows %s', (address) => {
    expect(guard.denies(address)).toBe(false);
  });

  it('refuses a name that resolves into a denied range, and an IP address in brackets', async () => {
    await expect(guard.resolve('localhost')).rejects.toMatchObject({ code: DENIED_CODE, message: expect.stringMatching(/^localhost \((127\.0\.0\.1|::1)\) is in ETCD_PROBE_DENY_CIDRS/) });
    await expect(guard.resolve('[::1]')).rejects.toMatchObject({ code: DENIED_CODE });
    await expect(guard.resolve('10.1.2.3')).resolves.toBe('10.1.2.3');
  });

  it('answers the lookup of net.connect with the checked address, one or all', async () => {
    const one = await new Promise((resolve) => new DialGuard([]).lookup('10.1.2.3', {}, (...args) => resolve(args)));
    expect(one).toEqual([null, '10.1.2.3', 4]);
    const all = await new Promise((resolve) => new DialGuard([]).lookup('10.1.2.3', { all: true }, (...args) => resolve(args)));
    expect(all).toEqual([null, [{ address: '10.1.2.3', family: 4 }]]);
    const denied = await new Promise<unknown[]>((resolve) => guard.lookup('127.0.0.1', {}, (...args) => resolve(args)));
    expect(denied[0]).toMatchObject({ code: DENIED_CODE });
  });
});

describe('ETCD_PROBE_DENY_CIDRS', () => {
  const load = (env: Record<string, string>) => loadConfig({ env: { ETCD_PROBE_MANAGEMENT_KUBECONFIG: '/dev/null', ...env }, argv: [], now: new Date() });

  it('takes none for no list, and CIDRs of both families', () => {
    expect(parseCidrList('none')).toEqual([]);
    expect(parseCidrList(' 10.0.0.0/8 , FD00::/8 ')).toEqual(['10.0.0.0/8', 'fd00::/8']);
  });

  it.each(['10.0.0.0', '10.0.0.0/33', 'fe80::/129', 'host/8', ','])('refuses %j, naming the variable', (raw) => {
    const result = load({ ETCD_PROBE_CAPI_CLUSTER: 'ns/c', ETCD_PROBE_DENY_CIDRS: raw });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.message).join('\n')).toMatch(/ETCD_PROBE_DENY_CIDRS/);
  });

  it('is a config error outside Cluster API mode (the operator configured those kubeconfigs)', () => {
    const result = loadConfig({ env: { ETCD_PROBE_ENDPOINTS: 'https://10.0.0.1:2379', ETCD_PROBE_DENY_CIDRS: '10.0.0.0/8' }, argv: [], now: new Date() });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.message).join('\n')).toContain('ETCD_PROBE_DENY_CIDRS: applies only to Cluster API mode');
  });
});
