import { describe, expect, it } from 'vitest';
import { ProbeMetrics } from '../../src/metrics/probe-metrics.ts';
import { round, three } from '../probe/observation-builders.ts';
import { RoundJudge } from '../../src/probe/round-judge.ts';
import { snapshotOf, TEST_THRESHOLDS } from '../probe/snapshot-builder.ts';

// The gauges the alert rules read (chart/files/alerts.yaml), as a scrape would show them.

async function scrape(metrics: ProbeMetrics): Promise<string> {
  return metrics.registry.metrics();
}

describe('ProbeMetrics for the alert rules', () => {
  it('exports the configured quota before any round', async () => {
    const text = await scrape(new ProbeMetrics({ quotaBytes: 2 * 2 ** 30 }));
    expect(text).toMatch(/^etcd_probe_quota_backend_bytes 2147483648$/m);
  });

  it('says whether the round found a leader', async () => {
    const metrics = new ProbeMetrics({ quotaBytes: 1 });
    metrics.recordRound(snapshotOf(round(three())));
    expect(await scrape(metrics)).toMatch(/^etcd_probe_cluster_has_leader 1$/m);
    metrics.recordRound(snapshotOf(round(three(), { leader: null })));
    expect(await scrape(metrics)).toMatch(/^etcd_probe_cluster_has_leader 0$/m);
  });

  it('marks a member down and the verdict degraded when one member is unreachable', async () => {
    const metrics = new ProbeMetrics({ quotaBytes: 1 });
    metrics.recordRound(snapshotOf(round(three({ c: { state: 'unreachable' } }))));
    const text = await scrape(metrics);
    expect(text).toMatch(/^etcd_probe_member_up\{member="m-c",id="c"\} 0$/m);
    expect(text).toMatch(/^etcd_probe_member_up\{member="m-a",id="a"\} 1$/m);
    expect(text).toMatch(/^etcd_probe_cluster_status\{status="degraded"\} 1$/m);
    expect(text).toMatch(/^etcd_probe_reason_active\{code="MEMBER_UNREACHABLE",severity="degraded"\} 1$/m);
  });
});

describe('ProbeMetrics counters over rounds', () => {
  it('counts leader elections and member transitions, and exports the disruption budget', async () => {
    const judge = new RoundJudge({ thresholds: TEST_THRESHOLDS, history: { windowMs: 3_600_000, maxBytes: 2 ** 20, checksMs: 0 }, mode: 'static' });
    const metrics = new ProbeMetrics({ quotaBytes: 1 });
    const rounds = [
      round(three()),
      round(three({ c: { state: 'unreachable' } })),
      round(three({ a: { raftTerm: 5 }, b: { raftTerm: 5 }, c: { raftTerm: 5 } }), { leader: 'b' }),
      round(three({ a: { raftTerm: 5 }, b: { raftTerm: 5 }, c: { raftTerm: 5 } }), { leader: 'b' }),
    ];
    const budgets: string[] = [];
    for (const [i, o] of rounds.entries()) {
      metrics.recordRound(judge.judge({ ...o, startedAt: i * 1000 }, i * 1000 + 5));
      budgets.push(/^etcd_probe_disruptions_allowed (\d+)$/m.exec(await scrape(metrics))?.[1] ?? '?');
    }
    const text = await scrape(metrics);
    expect(budgets).toEqual(['1', '0', '1', '1']);
    // term 2 → 5 with a new leader: one change of leader (the term jump is campaigns, not elections won).
    expect(text).toMatch(/^etcd_probe_leader_changes_total 1$/m);
    expect(text).toMatch(/^etcd_probe_member_transitions_total\{id="c",to="unreachable"\} 1$/m);
    expect(text).toMatch(/^etcd_probe_member_transitions_total\{id="c",to="healthy"\} 1$/m);
  });
});

describe('ProbeMetrics per-member series (issue 25, hole 2)', () => {
  const seriesOf = (text: string, name: string): string[] => text.split('\n').filter((l) => l.startsWith(`${name}_count{`) || l.startsWith(`${name}{`));

  it('labels RPC durations and transitions by member ID and drops a member gone from the cluster: series stay flat while members come and go', async () => {
    const judge = new RoundJudge({ thresholds: TEST_THRESHOLDS, history: { windowMs: 3_600_000, maxBytes: 2 ** 20, checksMs: 0 }, mode: 'static' });
    const metrics = new ProbeMetrics({ quotaBytes: 1 });
    const counts: number[] = [];
    for (let i = 0; i < 40; i++) {
      // A third member replaced every round (a new ID and a new name), and down every other round.
      const members = [{ id: 'a', name: 'm-a' }, { id: 'b', name: 'm-b' }, { id: `r${i}`, name: `renamed-${i}`, ...(i % 2 === 0 ? { state: 'unreachable' as const } : {}) }];
      metrics.recordRound(judge.judge({ ...round(members), startedAt: i * 1000 }, i * 1000 + 5));
      const text = await scrape(metrics);
      counts.push(seriesOf(text, 'etcd_probe_rpc_duration_seconds').length + seriesOf(text, 'etcd_probe_member_transitions_total').length);
    }
    const text = await scrape(metrics);
    expect(text).toMatch(/^etcd_probe_rpc_duration_seconds_count\{id="a",rpc="status"\} 40$/m);
    expect(text).toMatch(/^etcd_probe_rpc_duration_seconds_count\{id="r39",rpc="status"\} 1$/m);
    const cumulative = text.split('\n').filter((l) => /^etcd_probe_(rpc_duration_seconds|member_transitions_total)/.test(l)).join('\n');
    expect(cumulative).not.toMatch(/id="r38"|member=/);
    // Flat: the last round has no more series than the tenth (without removal it grew by each new ID).
    expect(Math.max(...counts.slice(10))).toBeLessThanOrEqual(Math.max(...counts.slice(0, 10)));
  });
});

describe("ProbeMetrics's default Node metrics", () => {
  it('keeps the per-type handle and request gauges but not their *_total duplicates (gauges named like counters)', async () => {
    const text = await scrape(new ProbeMetrics({ quotaBytes: 1 }));
    expect(text).toContain('# TYPE nodejs_active_handles gauge');
    expect(text).not.toMatch(/^nodejs_active_(handles|requests|resources)_total/m);
  });
});
