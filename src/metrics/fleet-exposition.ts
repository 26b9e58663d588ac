import type { Registry } from 'prom-client';

/** One cluster's registry, exported with its `cluster` label. */
export interface ClusterRegistry {
  readonly cluster: string;
  readonly registry: Registry;
}

interface Series {
  readonly help: string;
  readonly type: string;
  readonly lines: string[];
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function labelText(labels: Record<string, string | number>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(typeof v === 'number' ? formatValue(v) : String(v))}"`);
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

/**
 * The Prometheus text of a fleet: the process's own registry, and every metric of the clusters'
 * registries with each series labelled `cluster` first, each metric family written once (one HELP and
 * TYPE) even when the process and the clusters both have it (the certificate gauges, say). Each cluster
 * keeps a registry of its own, so that a cluster leaving the fleet (or this replica's shard) takes all
 * of its series with it, and its label values cannot collide with another's.
 */
export async function fleetExposition(own: Registry, clusters: readonly ClusterRegistry[]): Promise<string> {
  const merged = new Map<string, Series>();
  const add = async (registry: Registry, cluster: string | null) => {
    for (const metric of await registry.getMetricsAsJSON()) {
      let series = merged.get(metric.name);
      if (!series) {
        series = { help: metric.help, type: String(metric.type), lines: [] };
        merged.set(metric.name, series);
      }
      for (const sample of metric.values as { value: number; labels: Record<string, string | number>; metricName?: string }[]) {
        const labels = cluster === null ? sample.labels : { cluster, ...sample.labels };
        series.lines.push(`${sample.metricName ?? metric.name}${labelText(labels)} ${formatValue(sample.value)}`);
      }
    }
  };
  await add(own, null);
  for (const { cluster, registry } of clusters) await add(registry, cluster);
  let text = '';
  for (const [name, series] of merged) {
    text += `# HELP ${name} ${series.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${series.type}\n`;
    if (series.lines.length > 0) text += `${series.lines.join('\n')}\n`;
  }
  return text;
}
