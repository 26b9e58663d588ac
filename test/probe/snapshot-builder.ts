import type { Thresholds } from '../../src/probe/member-checks.ts';
import type { RoundObservations } from '../../src/probe/observations.ts';
import { buildSnapshot, type Snapshot } from '../../src/probe/snapshot.ts';
import { NO_RECENT_ROUNDS } from '../../src/probe/verdict.ts';

/** The defaults the tests judge by: a 2 GiB quota and the service's default limits. */
export const TEST_THRESHOLDS: Thresholds = {
  quotaBytes: 2 * 2 ** 30,
  maxRaftGap: 1000,
  nodeGraceMs: 120_000,
  electionGraceMs: 10_000,
  leaderChangesMax: 4,
  leaderChangesWindowMs: 900_000,
  flapChangesMax: 4,
  flapWindowMs: 600_000,
  stallRounds: 3,
  quotaEtaThresholdMs: 86_400_000,
  quotaEtaWindowMs: 21_600_000,
};

/** A judged snapshot of scripted observations, built the way Prober.round() builds one. */
export function snapshotOf(observations: RoundObservations, checkedAt = Date.UTC(2026, 11, 2, 12), thresholds: Partial<Thresholds> = {}): Snapshot {
  return buildSnapshot({ sequence: 1, mode: 'static', observations, thresholds: { ...TEST_THRESHOLDS, ...thresholds }, recent: NO_RECENT_ROUNDS, checkedAt });
}
