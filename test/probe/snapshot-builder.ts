import { buildClusterView } from '../../src/probe/cluster-view.ts';
import type { RoundObservations } from '../../src/probe/observations.ts';
import type { Snapshot } from '../../src/probe/snapshot.ts';
import { judge } from '../../src/probe/verdict.ts';

/** A judged snapshot of scripted observations, as Prober.round() would produce it (2 GiB quota). */
export function snapshotOf(observations: RoundObservations, checkedAt = Date.UTC(2026, 11, 2, 12)): Snapshot {
  const view = buildClusterView(observations);
  return {
    sequence: 1,
    mode: 'static',
    checkedAt,
    checkedAtIso: new Date(checkedAt).toISOString(),
    durationMs: observations.durationMs,
    observations,
    view,
    verdict: judge(view, { quotaBytes: 2 * 2 ** 30, maxRaftGap: 1000, nodeGraceMs: 120_000, electionGraceMs: 10_000 }, checkedAt),
  };
}
