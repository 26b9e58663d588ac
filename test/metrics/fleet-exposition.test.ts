import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { fleetExposition } from '../../src/metrics/fleet-exposition.ts';

function clusterRegistry(status: string): Registry {
  const registry = new Registry();
  new Gauge({ name: 'etcd_probe_cluster_status', help: 'The current verdict.', labelNames: ['status'], registers: [registry] }).set({ status }, 1);
  new Counter({ name: 'etcd_probe_rounds_total', help: 'Rounds.', registers: [registry] }).inc(2);
  new Histogram({ name: 'etcd_probe_round_duration_seconds', help: 'Duration.', buckets: [0.1], registers: [registry] }).observe(0.05);
  return registry;
}

describe('the fleet exposition', () => {
  it('writes each metric once, every series labelled with its cluster, escaped', async () => {
    const own = new Registry();
    new Gauge({ name: 'etcd_probe_fleet_clusters', help: 'Clusters.', registers: [own] }).set(2);
    const text = await fleetExposition(own, [
      { cluster: 'ns/a', registry: clusterRegistry('healthy') },
      { cluster: 'we"ird\\', registry: clusterRegistry('degraded') },
    ]);
    expect(text.match(/^# TYPE etcd_probe_cluster_status gauge$/gm)).toHaveLength(1);
    expect(text).toContain('etcd_probe_fleet_clusters 2\n');
    expect(text).toContain('etcd_probe_cluster_status{cluster="ns/a",status="healthy"} 1\n');
    expect(text).toContain('etcd_probe_cluster_status{cluster="we\\"ird\\\\",status="degraded"} 1\n');
    expect(text).toContain('etcd_probe_rounds_total{cluster="ns/a"} 2\n');
    expect(text).toContain('etcd_probe_round_duration_seconds_bucket{cluster="ns/a",le="+Inf"} 1\n');
    expect(text).toContain('etcd_probe_round_duration_seconds_count{cluster="ns/a"} 1\n');
  });
});

describe('the fleet exposition of a metric both the process and its clusters have', () => {
  it('writes the family once, the process series unlabelled and each cluster series labelled', async () => {
    const family = (registry: Registry, credentials: string) =>
      new Gauge({ name: 'etcd_probe_certificate_not_after_seconds', help: 'Expiry.', labelNames: ['credentials'], registers: [registry] }).set({ credentials }, 100);
    const own = new Registry();
    family(own, 'listener');
    const cluster = new Registry();
    family(cluster, 'etcd-client');
    const text = await fleetExposition(own, [{ cluster: 'a', registry: cluster }]);
    expect(text.match(/^# TYPE etcd_probe_certificate_not_after_seconds gauge$/gm)).toHaveLength(1);
    expect(text).toContain('etcd_probe_certificate_not_after_seconds{credentials="listener"} 100\netcd_probe_certificate_not_after_seconds{cluster="a",credentials="etcd-client"} 100\n');
  });
});
