import type { SettingGroup } from './setting.ts';
import { parseBoolean, parseBytes, parseDuration, parseInteger, parseShard } from './value-parsers.ts';

/** The settings of fleet mode (many clusters in one process), in help order. */
export const FLEET_SETTINGS = {
  clustersFile: {
    key: 'clustersFile',
    env: 'ETCD_PROBE_CLUSTERS_FILE',
    flag: 'clusters-file',
    fallback: null,
    absent: null,
    help: 'YAML file listing the clusters to probe (fleet mode; docs/fleet.md): each a name and the settings of one mode',
    parse: (raw) => raw,
  },
  shard: {
    key: 'shard',
    env: 'ETCD_PROBE_SHARD',
    flag: 'shard',
    fallback: '0/1',
    help: 'fleet mode: <index>/<count>, the share of the clusters this replica keeps warm and exports metrics for',
    parse: parseShard,
  },
  fleetRefreshMs: {
    key: 'fleetRefreshMs',
    env: 'ETCD_PROBE_FLEET_REFRESH',
    flag: 'fleet-refresh',
    fallback: '30s',
    help: "fleet mode: how often the clusters this replica owns are probed, and a Cluster API fleet's Clusters listed",
    parse: (raw) => parseDuration(raw, 1000, 3_600_000),
  },
  maxRoundsInFlight: {
    key: 'maxRoundsInFlight',
    env: 'ETCD_PROBE_MAX_ROUNDS_IN_FLIGHT',
    flag: 'max-rounds-in-flight',
    fallback: '16',
    help: 'fleet mode: probe rounds running at once across clusters; the others wait their turn',
    parse: (raw) => parseInteger(raw, 1, 1000),
  },
  idleCloseMs: {
    key: 'idleCloseMs',
    env: 'ETCD_PROBE_IDLE_CLOSE',
    flag: 'idle-close',
    fallback: '5m',
    help: 'fleet mode: a cluster this replica does not own closes its clients and tunnels when nobody asked about it this long',
    parse: (raw) => parseDuration(raw, 1000, 24 * 3_600_000),
  },
  holdConnections: {
    key: 'holdConnections',
    env: 'ETCD_PROBE_FLEET_HOLD_CONNECTIONS',
    flag: 'fleet-hold-connections',
    fallback: 'false',
    help: "fleet mode: keep a cluster's port-forwards and etcd connections open between its rounds (less CPU, about 0.6 MiB more per cluster); by default each round dials them and closes them after",
    parse: parseBoolean,
  },
  fleetMaxClusters: {
    key: 'fleetMaxClusters',
    env: 'ETCD_PROBE_FLEET_MAX_CLUSTERS',
    flag: 'fleet-max-clusters',
    fallback: '1000',
    help: 'Cluster API fleet: Clusters followed at most; the oldest are kept, the excess is reported in /clusters and etcd_probe_fleet_left_out_clusters',
    parse: (raw) => parseInteger(raw, 1, 100_000),
  },
  fleetMaxClustersPerNamespace: {
    key: 'fleetMaxClustersPerNamespace',
    env: 'ETCD_PROBE_FLEET_MAX_CLUSTERS_PER_NAMESPACE',
    flag: 'fleet-max-clusters-per-namespace',
    fallback: '250',
    help: "Cluster API fleet: Clusters followed at most in one namespace, so one tenant cannot fill the fleet's bound; the oldest are kept",
    parse: (raw) => parseInteger(raw, 1, 100_000),
  },
  fleetHistoryMaxBytes: {
    key: 'fleetHistoryMaxBytes',
    env: 'ETCD_PROBE_FLEET_HISTORY_MAX_BYTES',
    flag: 'fleet-history-max-bytes',
    fallback: '256MiB',
    help: "Cluster API fleet: the histories' memory budget, shared by the clusters: each may hold this divided by ETCD_PROBE_FLEET_MAX_CLUSTERS (at least 64KiB, at most ETCD_PROBE_HISTORY_MAX_BYTES)",
    parse: (raw) => parseBytes(raw, 2 ** 20, 2 ** 36),
  },
} satisfies SettingGroup;
