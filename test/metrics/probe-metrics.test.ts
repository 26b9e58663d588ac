import { describe, expect, it } from 'vitest';
import { ProbeMetrics } from '../../src/metrics/probe-metrics.ts';
import { round, three } from '../probe/observation-builders.ts';
import { snapshotOf } from '../probe/snapshot-builder.ts';

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

describe("ProbeMetrics's default Node metrics", () => {
  it('keeps the per-type handle and request gauges but not their *_total duplicates (gauges named like counters)', async () => {
    const text = await scrape(new ProbeMetrics({ quotaBytes: 1 }));
    expect(text).toContain('# TYPE nodejs_active_handles gauge');
    expect(text).not.toMatch(/^nodejs_active_(handles|requests|resources)_total/m);
  });
});
