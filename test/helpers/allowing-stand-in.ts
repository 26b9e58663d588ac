import { DEFAULT_DENY_CIDRS } from '../../src/config/kube-settings.ts';

/**
 * ETCD_PROBE_DENY_CIDRS for a service whose Cluster API stand-in listens on 127.0.0.1: the default deny
 * list without loopback, so that tests reach the stand-in and still run with every other range denied.
 * A test that uses it says so; nothing else turns the default off.
 */
export function allowingStandIn(): { ETCD_PROBE_DENY_CIDRS: string } {
  const cidrs = DEFAULT_DENY_CIDRS.split(',').filter((c) => c !== '127.0.0.0/8' && c !== '::1/128');
  return { ETCD_PROBE_DENY_CIDRS: cidrs.join(',') };
}
