import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** What the fleet's gauges read when scraped. */
export interface FleetFacts {
  /** Clusters known, owned by this replica, waiting (provisioning, paused, deleting), with an open prober. */
  readonly clusters: number;
  readonly owned: number;
  readonly waiting: number;
  readonly open: number;
  readonly roundsRunning: number;
  readonly roundsWaiting: number;
  /** Listed Clusters not followed, by the bound that left them out (Cluster API fleet; 0 otherwise). */
  readonly leftOut: { readonly namespace: number; readonly fleet: number };
}

const NON_COUNTER_TOTALS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** The process's own registry in fleet mode: its process metrics, and the fleet's size and load as of the scrape. */
export class FleetMetrics {
  readonly registry = new Registry();

  constructor(facts: () => FleetFacts) {
    collectDefaultMetrics({ register: this.registry });
    for (const name of NON_COUNTER_TOTALS) this.registry.removeSingleMetric(name);
    const gauge = (name: string, help: string, read: (f: FleetFacts) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read(facts()));
        },
      });
    gauge('etcd_probe_fleet_clusters', 'Clusters in the fleet, owned by any replica.', (f) => f.clusters);
    gauge('etcd_probe_fleet_owned_clusters', 'Clusters this replica owns (by ETCD_PROBE_SHARD): kept warm, their metrics exported here.', (f) => f.owned);
    gauge('etcd_probe_fleet_waiting_clusters', 'Clusters not probed now: provisioning, paused or deleting.', (f) => f.waiting);
    gauge('etcd_probe_fleet_open_clusters', 'Clusters whose clients and tunnels are open now.', (f) => f.open);
    gauge('etcd_probe_fleet_rounds_running', 'Probe rounds running now, across clusters.', (f) => f.roundsRunning);
    new Gauge({
      name: 'etcd_probe_fleet_left_out_clusters',
      help: 'Listed Clusters the fleet does not follow, by bound: ETCD_PROBE_FLEET_MAX_CLUSTERS_PER_NAMESPACE (namespace) or ETCD_PROBE_FLEET_MAX_CLUSTERS (fleet).',
      labelNames: ['bound'],
      registers: [this.registry],
      collect() {
        const { leftOut } = facts();
        this.set({ bound: 'namespace' }, leftOut.namespace);
        this.set({ bound: 'fleet' }, leftOut.fleet);
      },
    });
    gauge('etcd_probe_fleet_rounds_waiting', 'Probe rounds waiting for a slot (ETCD_PROBE_MAX_ROUNDS_IN_FLIGHT).', (f) => f.roundsWaiting);
  }
}
