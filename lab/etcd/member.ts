import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { PkiFiles } from '#lab/certs/pki.ts';
import type { MemberAddress } from './member-placement.ts';

// Lab: one member of an EtcdCluster, its addresses and its etcd command line.

/** One member's process and addresses. */
export interface ClusterMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly metricsUrl: string;
  readonly dataDir: string;
  readonly logFile: string;
  /** --initial-cluster and --initial-cluster-state for this member's first start. */
  readonly initialCluster: string;
  readonly initialState: 'new' | 'existing';
  process: ChildProcess | null;
  paused: boolean;
}

/** A member that has not started yet, its files in dir. */
export function newMember(
  dir: string,
  name: string,
  scheme: string,
  { host, client, peer, metrics }: MemberAddress,
  initialCluster: string,
  initialState: 'new' | 'existing',
): ClusterMember {
  return {
    name,
    clientUrl: `${scheme}://${host}:${client}`,
    peerUrl: `http://${host}:${peer}`,
    metricsUrl: `http://${host}:${metrics}`,
    dataDir: join(dir, `${name}.etcd`),
    logFile: join(dir, `${name}.log`),
    initialCluster,
    initialState,
    process: null,
    paused: false,
  };
}

/** What every member of one cluster is started with. */
export interface ClusterFlags {
  readonly token: string;
  readonly pki: PkiFiles | null;
  readonly quotaBackendBytes?: number;
  /** More etcd flags, e.g. --pre-vote=true. */
  readonly extraArgs?: readonly string[];
}

/** etcd's command line for a member. */
export function memberArgs(m: ClusterMember, { token, pki, quotaBackendBytes, extraArgs = [] }: ClusterFlags): string[] {
  return [
    `--name=${m.name}`,
    `--data-dir=${m.dataDir}`,
    `--listen-client-urls=${m.clientUrl}`,
    `--advertise-client-urls=${m.clientUrl}`,
    `--listen-peer-urls=${m.peerUrl}`,
    `--initial-advertise-peer-urls=${m.peerUrl}`,
    `--listen-metrics-urls=${m.metricsUrl}`,
    `--initial-cluster=${m.initialCluster}`,
    `--initial-cluster-token=${token}`,
    `--initial-cluster-state=${m.initialState}`,
    '--logger=zap',
    '--log-outputs=stderr',
    '--log-level=warn',
    ...(quotaBackendBytes ? [`--quota-backend-bytes=${quotaBackendBytes}`] : []),
    ...(pki
      ? [
          `--cert-file=${pki.memberServer[m.name]?.certFile ?? pki.serverCertFile}`,
          `--key-file=${pki.memberServer[m.name]?.keyFile ?? pki.serverKeyFile}`,
          `--trusted-ca-file=${pki.caFile}`,
          '--client-cert-auth',
        ]
      : []),
    ...extraArgs,
  ];
}

/** Reads one number from a member's /metrics, summing every series the pattern matches. */
export async function readMetric(metricsUrl: string, pattern: RegExp): Promise<number> {
  const response = await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(2000) });
  const text = await response.text();
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  let sum = 0;
  for (const match of text.matchAll(global)) sum += Number(match[1]);
  return sum;
}

/** The pattern of grpc_server_started_total for one unary gRPC method. */
export function grpcStartedPattern(method: string): RegExp {
  return new RegExp(`^grpc_server_started_total\\{[^}]*grpc_method="${method}"[^}]*\\} (\\d+)`, 'm');
}
