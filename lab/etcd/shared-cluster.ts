import { inject } from 'vitest';
import type { PkiFiles } from '#lab/certs/pki.ts';
import { grpcStartedPattern, readMetric } from './member.ts';

// The integration projects' shared cluster: one 3-member TLS cluster that lab/etcd/global-setup.ts
// starts once per project (with that project's etcd) and stops at the end of the run. Files that only
// read the cluster use it instead of starting their own; a file that kills, pauses, cuts or writes
// starts its own EtcdCluster. This handle has no way to disturb it.

/** A member of the shared cluster, as the tests see it. */
export interface SharedMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly metricsUrl: string;
}

/** What the global setup hands to the test files. */
export interface SharedClusterInfo {
  readonly endpoints: string;
  readonly pki: PkiFiles;
  readonly members: readonly SharedMember[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    sharedEtcd: SharedClusterInfo;
  }
}

/** The running shared cluster of this project: its addresses, its TLS files and its metrics. */
export class SharedCluster {
  readonly endpoints: string;
  readonly pki: PkiFiles;
  readonly members: readonly SharedMember[];

  private constructor(info: SharedClusterInfo) {
    this.endpoints = info.endpoints;
    this.pki = info.pki;
    this.members = info.members;
  }

  /** The shared cluster of the project this file runs in. */
  static get(): SharedCluster {
    const info = inject('sharedEtcd');
    if (!info) throw new Error('no shared cluster: only the integration projects start one (lab/etcd/global-setup.ts)');
    return new SharedCluster(info);
  }

  /** How many unary calls of a gRPC method a member has started (grpc_server_started_total). */
  grpcStarted(index: number, method: string): Promise<number> {
    return readMetric(this.#member(index).metricsUrl, grpcStartedPattern(method));
  }

  #member(index: number): SharedMember {
    const m = this.members[index];
    if (!m) throw new Error(`no member ${index}`);
    return m;
  }
}
