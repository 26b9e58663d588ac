import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { round } from './stats.ts';

/** A bound a metric must meet. */
export interface Target {
  readonly op: '<=' | '>=';
  readonly value: number;
}

/** One measured number; informational when it has no target. */
export interface Metric {
  readonly id: string;
  readonly label: string;
  readonly value: number;
  readonly unit: string;
  readonly target: Target | null;
  readonly pass: boolean | null;
  readonly note?: string;
}

/** Builds a metric, judging it against its target when it has one (NaN never passes). */
export function metric(id: string, label: string, value: number, unit: string, target: Target | null = null, note?: string): Metric {
  const pass = target === null ? null : target.op === '<=' ? value <= target.value : value >= target.value;
  return { id, label, value: round(value, 3), unit, target, pass, ...(note ? { note } : {}) };
}

function show(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit === 'ratio' ? '' : ` ${unit}`}`;
}

/** The metrics as a fixed-width text table: metric, measured, target, pass/fail. */
export function table(metrics: readonly Metric[]): string {
  const rows = metrics.map((m) => [
    m.label,
    show(m.value, m.unit),
    m.target ? `${m.target.op === '<=' ? '≤' : '≥'} ${show(m.target.value, m.unit)}` : '-',
    m.pass === null ? 'info' : m.pass ? 'PASS' : 'FAIL',
  ]);
  const header = ['metric', 'measured', 'target', 'result'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 1 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map(line)].join('\n');
}

/** The machine the run happened on. */
export interface Environment {
  readonly node: string;
  readonly etcd: string;
  readonly cpuCount: number;
  readonly cpuModel: string;
  readonly platform: string;
  readonly date: string;
}

/** Node, etcd, CPUs and the date of this run. */
export function environment(etcdVersion: string, date: Date): Environment {
  const cpu = cpus();
  return {
    node: process.version,
    etcd: etcdVersion,
    cpuCount: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    platform: `${process.platform}-${process.arch}`,
    date: date.toISOString(),
  };
}

/** Writes results.json: the environment, the settings used, and every metric. */
export function writeResults(path: string, env: Environment, settings: Record<string, unknown>, metrics: readonly Metric[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const failed = metrics.filter((m) => m.pass === false).map((m) => m.id);
  writeFileSync(path, `${JSON.stringify({ environment: env, settings, pass: failed.length === 0, failed, metrics }, null, 2)}\n`);
}
