import type { HealthStatus } from '../../../src/probe/health-status.ts';
import type { MemberState, RoundRecord } from '../../../src/probe/history/round-record.ts';

// Builders of compact round records for the history rules' table tests: data in, no etcd.

/** One round of members a, b, c (names m-a…): who leads at which term, each member's state and applied index. */
export interface RecordSpec {
  readonly leader?: 'a' | 'b' | 'c' | null;
  readonly term?: number;
  readonly states?: Partial<Record<'a' | 'b' | 'c', MemberState>>;
  readonly applied?: Partial<Record<'a' | 'b' | 'c', number | null>>;
  /** Database KiB in use (and allocated); null (not answered) by default. */
  readonly inUseKiB?: Partial<Record<'a' | 'b' | 'c', number>>;
  readonly alarms?: readonly string[];
  readonly status?: HealthStatus;
  readonly confirmed?: boolean;
}

/** A record at `at` seconds (epoch ms = at × 1000). */
export function rec(at: number, spec: RecordSpec = {}): RoundRecord {
  const leader = spec.leader === undefined ? 'a' : spec.leader;
  return {
    at: at * 1000,
    status: spec.status ?? 'healthy',
    confirmed: spec.confirmed ?? leader !== null,
    leader: leader ? { id: leader, name: `m-${leader}` } : null,
    term: leader ? (spec.term ?? 2) : null,
    members: (['a', 'b', 'c'] as const).map((id) => {
      const state = spec.states?.[id] ?? 'healthy';
      return { id, name: `m-${id}`, state, applied: spec.applied?.[id] === undefined ? 100 + at : (spec.applied[id] ?? null), failure: state === 'healthy' ? null : 'CONNECTION_REFUSED', inUseKiB: spec.inUseKiB?.[id] ?? null, allocatedKiB: spec.inUseKiB?.[id] ?? null };
    }),
    alarms: spec.alarms ?? [],
  };
}
