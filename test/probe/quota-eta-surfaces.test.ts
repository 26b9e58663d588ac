import { describe, expect, it } from 'vitest';
import { membersDocument } from '../../src/http/documents.ts';
import { memberCard } from '../../src/http/status-page/member-card.ts';
import { ProbeMetrics } from '../../src/metrics/probe-metrics.ts';
import { RoundJudge } from '../../src/probe/round-judge.ts';
import type { Snapshot } from '../../src/probe/snapshot.ts';
import { round, three } from './observation-builders.ts';
import { TEST_THRESHOLDS } from './snapshot-builder.ts';

// One growing member, judged round after round as the prober does: the ETA reaches the reason, the
// metric, /members and the status page's card, and leaves them all when the growth stops.

const MIB = 2 ** 20;
const QUOTA = 2048 * MIB;

/** 12 rounds 5 s apart, b growing 25 MiB a round from 1229 MiB (5 MiB/s), then `flat` rounds with b still. */
function rounds(flat: number): Snapshot[] {
  const judge = new RoundJudge({
    thresholds: { ...TEST_THRESHOLDS, quotaBytes: QUOTA, quotaEtaWindowMs: 60_000 },
    history: { windowMs: 3_600_000, maxBytes: 16 * MIB, checksMs: 900_000 },
    mode: 'static',
  });
  const out: Snapshot[] = [];
  for (let i = 0; i < 12 + flat; i++) {
    const size = 1229 * MIB + 25 * MIB * Math.min(i, 11);
    const at = 1_000_000 + i * 5_000;
    out.push(judge.judge({ ...round(three({ b: { dbSizeBytes: size, dbSizeInUseBytes: size } })), startedAt: at - 5 }, at));
  }
  return out;
}

describe('the quota ETA on every surface', () => {
  it('serves b\'s ETA (544 MiB left at 5 MiB/s: 109 s) as a reason, a metric, in /members and on its card', async () => {
    const snapshot = rounds(0).at(-1) as Snapshot;
    const eta = snapshot.verdict.quotaEta.find((e) => e.member.id === 'b');
    expect(eta?.eta).toMatchObject({ served: true, basis: 'in-use' });
    const r = snapshot.verdict.reasons.find((x) => x.code === 'DB_QUOTA_EXHAUSTION_SOON');
    expect(r?.severity).toBe('info');
    expect(r?.message).toBe("m-b's database in use grows 17.6 GiB/h (steady over the last 55s): at that rate it reaches the 2 GiB quota in about 2m, when etcd raises NOSPACE");
    expect(snapshot.verdict.status).toBe('healthy'); // 73 % of the quota: a forecast, not a fault
    const metrics = new ProbeMetrics({ quotaBytes: QUOTA });
    metrics.recordRound(snapshot);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^etcd_probe_db_quota_eta_seconds\{member="m-b",id="b"\} 109$/m);
    expect(text).not.toMatch(/^etcd_probe_db_quota_eta_seconds\{member="m-a"/m);
    const b = membersDocument(snapshot).members.find((m) => m.id === 'b');
    expect(b?.quotaEta).toMatchObject({ etaSeconds: 109, growthBytesPerSecond: 5 * MIB, withheld: null, basis: 'in-use' });
    expect(memberCard(b as NonNullable<typeof b>, QUOTA).markup).toContain('<dt>Quota ETA</dt><dd>NOSPACE in about 2m (grows 17.6 GiB/h)</dd>');
    const a = membersDocument(snapshot).members.find((m) => m.id === 'a');
    expect(a?.quotaEta).toMatchObject({ etaSeconds: null, withheld: 'below-floor' });
    expect(memberCard(a as NonNullable<typeof a>, QUOTA).markup).toContain('<dd>none: under half the quota in use</dd>');
  });

  it('withdraws it once the growth has stopped for half the window: no reason, no series, "slowing" in /members', async () => {
    const snapshot = rounds(6).at(-1) as Snapshot;
    expect(snapshot.verdict.reasons.map((r) => r.code)).not.toContain('DB_QUOTA_EXHAUSTION_SOON');
    const metrics = new ProbeMetrics({ quotaBytes: QUOTA });
    metrics.recordRound(rounds(0).at(-1) as Snapshot);
    metrics.recordRound(snapshot);
    expect(await metrics.registry.metrics()).not.toMatch(/^etcd_probe_db_quota_eta_seconds\{/m);
    const b = membersDocument(snapshot).members.find((m) => m.id === 'b');
    expect(b?.quotaEta).toMatchObject({ etaSeconds: null, withheld: 'slowing' });
  });
});
