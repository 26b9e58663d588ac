import { spawnSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { EtcdCluster } from './cluster.ts';
import type { SharedClusterInfo } from './shared-cluster.ts';

// vitest globalSetup of the integration projects: checks once, before any file runs, that the project's
// etcd binary runs and is the version the project is named for (and says how to get it when it is not),
// then starts the project's shared cluster (lab/etcd/shared-cluster.ts) and stops it at the end.

/** Throws a message naming the fix when the project's etcd is missing or of another version. */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = (project.config.env ?? {}) as Record<string, string | undefined>;
  const binary = env.ETCD_BIN ?? process.env.ETCD_BIN ?? 'etcd';
  const expected = env.ETCD_EXPECT_VERSION;
  const fetch = env.ETCD_FETCH_HINT ?? 'apt-get install etcd-server, or set ETCD_BIN';
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const version = /etcd Version: (\S+)/.exec(result.stdout ?? '')?.[1];
  if (result.error || result.status !== 0 || !version) {
    throw new Error(`project ${project.name}: cannot run etcd at '${binary}' (${result.error?.message ?? result.stderr?.trim()}). Get it with: ${fetch}`);
  }
  if (expected && !version.startsWith(`${expected}.`)) {
    throw new Error(`project ${project.name}: '${binary}' is etcd ${version}, not ${expected}.x. Get it with: ${fetch}`);
  }
  console.log(`${project.name}: etcd ${version} (${binary})`);

  const shared = await EtcdCluster.start({ size: 3, tls: true, binary });
  const info: SharedClusterInfo = {
    endpoints: shared.endpoints,
    pki: shared.pki!,
    members: shared.members.map(({ name, clientUrl, metricsUrl }) => ({ name, clientUrl, metricsUrl })),
  };
  project.provide('sharedEtcd', info);
  return () => shared.stop();
}
