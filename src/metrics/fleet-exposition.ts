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
 * The Prometheus text of a fleet: the process's own registry as it is, then every metric of the
 * clusters' registries once (one HELP and TYPE), with each series labelled `cluster` first. Each cluster
 * keeps a registry of its own, so that a cluster leaving the fleet (or this replica's shard) takes all
 * of its series with it, and its label values cannot collide with another's.
 */
export async function fleetExposition(own: Registry, clusters: readonly ClusterRegistry[]): Promise<string> {
  const merged = new Map<string, Series>();
  for (const { cluster, registry } of clusters) {
    for (const metric of await registry.getMetricsAsJSON()) {
      let series = merged.get(metric.name);
      if (!series) {
        series = { help: metric.help, type: String(metric.type), lines: [] };
        merged.set(metric.name, series);
      }
      for (const sample of metric.values as { value: number; labels: Record<string, string | number>; metricName?: string }[]) {
        series.lines.push(`${sample.metricName ?? metric.name}${labelText({ cluster, ...sample.labels })} ${formatValue(sample.value)}`);
      }
    }
  }
  let text = await own.metrics();
  if (text !== '' && !text.endsWith('\n')) text += '\n';
  for (const [name, series] of merged) {
    if (series.lines.length === 0) continue;
    text += `# HELP ${name} ${series.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${series.type}\n${series.lines.join('\n')}\n`;
  }
  return text;
}
