import { Registry } from 'prom-client';
import { BackoffMetric } from '../../src/metrics/backoff-metric.ts';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FleetMetrics } from '../../src/metrics/fleet-metrics.ts';
import { ProbeMetrics } from '../../src/metrics/probe-metrics.ts';
import { REASONS, type ReasonCode } from '../../src/probe/reason-catalogue.ts';
import { promtool } from '#lab/prometheus/prometheus.ts';

// The alert rules, checked by Prometheus's own promtool (syntax, and behaviour over scripted series in
// alerts.promtool.yaml), and held to the metrics the service exports and to the reason catalogue.

const RULES = fileURLToPath(new URL('../../chart/files/alerts.yaml', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
const byName = new Map(rules.map((r) => [r.alert, r]));

/** Alerts that stand for one reason of the verdict carry that reason's hint, word for word. */
const SAME_HINT: Record<string, ReasonCode> = {
  EtcdNoLeader: 'QUORUM_LOST',
  EtcdDatabaseQuotaHigh: 'DB_QUOTA_HIGH',
  EtcdDatabaseQuotaExhaustionSoon: 'DB_QUOTA_EXHAUSTION_SOON',
  EtcdMemberDown: 'MEMBER_UNREACHABLE',
  EtcdDataDiverged: 'DATA_DIVERGED',
  EtcdDataNotCompared: 'DATA_NOT_COMPARED',
};

describe('chart/files/alerts.yaml', () => {
  it('passes promtool check rules', () => {
    const result = promtool(['check', 'rules', RULES]);
    expect(result.output).toContain('SUCCESS: 12 rules found');
    expect(result.status).toBe(0);
  });

  it('passes its promtool unit tests (alerts.promtool.yaml: for durations, labels, annotations)', () => {
    const result = promtool(['test', 'rules', 'alerts.promtool.yaml'], { cwd: HERE });
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });

  it('has the alerts of issue 5, each with a severity, a summary, a description and a hint', () => {
    expect([...byName.keys()].sort()).toEqual(
      ['EtcdDataDiverged', 'EtcdDataNotCompared', 'EtcdDatabaseQuotaExhaustionSoon', 'EtcdDatabaseQuotaHigh', 'EtcdMemberDown', 'EtcdNoDisruptionBudget', 'EtcdNoLeader', 'EtcdProbeDegraded', 'EtcdProbeDown', 'EtcdProbeFleetClustersLeftOut', 'EtcdProbeUnhealthy', 'EtcdProbeVerdictStale'],
    );
    for (const r of rules) {
      expect(['critical', 'warning'], r.alert).toContain(r.labels.severity);
      expect(Object.keys(r.annotations).sort(), r.alert).toEqual(['description', 'hint', 'summary']);
    }
    expect(byName.get('EtcdProbeDegraded')?.for).toBe('5m');
  });

  it.each(Object.entries(SAME_HINT))("gives %s the hint of reason %s", (alert, code) => {
    expect(byName.get(alert)?.annotations.hint).toBe(REASONS[code].hint);
  });

  it('uses only metrics the service exports', () => {
    const zero = { clusters: 0, owned: 0, waiting: 0, open: 0, roundsRunning: 0, roundsWaiting: 0, leftOut: { namespace: 0, fleet: 0 } };
    const backoff = new Registry();
    new BackoffMetric(backoff);
    const registries = [new ProbeMetrics({ quotaBytes: 1 }).registry, new FleetMetrics(() => zero).registry, backoff];
    const exported = new Set(registries.flatMap((r) => r.getMetricsAsArray().map((m) => m.name)));
    const used = new Set(rules.flatMap((r) => [...`${r.expr} ${r.annotations.description}`.matchAll(/\betcd_probe_[a-z_]+/g)].map((m) => m[0])));
    expect(used.size).toBeGreaterThan(0);
    for (const name of used) expect(exported, name).toContain(name);
  });
});
