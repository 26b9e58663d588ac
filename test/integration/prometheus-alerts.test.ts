import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '#lab/etcd/cluster.ts';
import { PrometheusServer, promtool, type ActiveAlert } from '#lab/prometheus/prometheus.ts';
import { get } from '../helpers/http.ts';
import { startService, type RunningService } from '../helpers/start-service.ts';
import { clusterEnv } from '#lab/service/cluster-env.ts';

// A real Prometheus (Debian's package) scrapes the service over loopback every second and evaluates
// chart/files/alerts.yaml every second, unchanged (no shortened `for`), while the service probes a real
// 3-member etcd cluster. Killing a member must fire EtcdMemberDown, and only after its 30 s `for`.

const RULES = fileURLToPath(new URL('../../chart/files/alerts.yaml', import.meta.url));
/** EtcdMemberDown's `for` in alerts.yaml. */
const FOR_MS = 30_000;
/** The bound on the whole wait: the `for`, plus scrapes, evaluations and a round with a 1 s timeout, with room for 2 loaded cores. */
const FIRE_BOUND_MS = FOR_MS + 30_000;

let cluster: EtcdCluster;
let service: RunningService;
let prometheus: PrometheusServer | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function named(alerts: readonly ActiveAlert[], name: string): ActiveAlert[] {
  return alerts.filter((a) => a.labels.alertname === name);
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
  service = await startService({ ...clusterEnv(cluster), ETCD_PROBE_CACHE_TTL: '1s', ETCD_PROBE_TIMEOUT: '1s', ETCD_PROBE_LOG_LEVEL: 'warn' });
});

afterAll(async () => {
  await prometheus?.stop();
  await service?.close();
  await cluster?.stop();
});

describe('alerts on a real Prometheus scraping the service', () => {
  it('exports metrics that pass promtool check metrics, scraped live against the real cluster', async () => {
    const scraped = await get(`${service.url}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toMatch(/^etcd_probe_member_up\{member="m1",id="[0-9a-f]+"\} 1$/m);
    const result = promtool(['check', 'metrics'], { input: scraped.text });
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('fires EtcdMemberDown for a killed member after its 30 s for, and not before the kill', async () => {
    const host = new URL(service.url).host;
    prometheus = await PrometheusServer.start({ target: host, job: 'etcd-probe', ruleFiles: [RULES], scrapeInterval: '1s', evaluationInterval: '1s' });
    // Prometheus loaded every rule of the file (test/alerts/alerts.test.ts holds the file's list).
    const inFile = [...readFileSync(RULES, 'utf8').matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1]);
    expect(inFile).toContain('EtcdMemberDown');
    expect((await prometheus.ruleNames()).sort()).toEqual(inFile.sort());

    // Healthy first: three members up in Prometheus, then several evaluations with no alert at all.
    const deadline = Date.now() + 30_000;
    let up: Awaited<ReturnType<PrometheusServer['query']>> = [];
    while (Date.now() < deadline) {
      up = await prometheus.query('etcd_probe_member_up{job="etcd-probe"} == 1');
      if (up.length === 3) break;
      await sleep(250);
    }
    expect(up.map((s) => s.metric.member).sort()).toEqual(['m1', 'm2', 'm3']);
    // Two evaluations of every rule after that, at least (one per second).
    const upAt = Date.now();
    await expect.poll(() => prometheus!.lastEvaluation(), { timeout: 15_000, interval: 250 }).toBeGreaterThanOrEqual(upAt + 2000);
    // (A scrape slower than its 1 s timeout on loaded cores may leave EtcdProbeDown pending: not a finding.)
    const before = await prometheus.alerts();
    expect(named(before, 'EtcdMemberDown')).toEqual([]);
    expect(before.filter((a) => a.state === 'firing' || a.labels.alertname !== 'EtcdProbeDown')).toEqual([]);

    const [victim] = (await cluster.followerIndexes()) as [number];
    const name = cluster.member(victim).name;
    await cluster.kill(victim);
    const killedAt = Date.now();

    let pendingAt: number | null = null;
    let firing: ActiveAlert | undefined;
    let alerts: ActiveAlert[] = [];
    while (Date.now() - killedAt < FIRE_BOUND_MS) {
      alerts = await prometheus.alerts();
      const down = named(alerts, 'EtcdMemberDown');
      if (pendingAt === null && down.length > 0) pendingAt = Date.now();
      firing = down.find((a) => a.state === 'firing');
      if (firing) break;
      await sleep(250);
    }
    const firedAt = Date.now();
    expect(firing, `EtcdMemberDown not firing within ${FIRE_BOUND_MS} ms; alerts: ${JSON.stringify(alerts)}`).toBeDefined();
    expect(firing?.labels).toMatchObject({ alertname: 'EtcdMemberDown', member: name, severity: 'warning', job: 'etcd-probe' });
    expect(firing?.annotations.summary).toBe(`etcd member ${name} is down`);
    // Only the killed member, and no earlier than the `for` after Prometheus first saw it down.
    expect(named(alerts, 'EtcdMemberDown')).toHaveLength(1);
    const activeAt = Date.parse(firing?.activeAt as string);
    expect(activeAt).toBeGreaterThanOrEqual(killedAt - 1000);
    expect(firedAt - activeAt).toBeGreaterThanOrEqual(FOR_MS);
    // The cluster is degraded, not unhealthy: EtcdProbeDegraded waits out its 5 minutes, the critical ones stay quiet.
    expect(named(alerts, 'EtcdProbeDegraded').map((a) => a.state)).toEqual(['pending']);
    // No member may stop now (one is down of three): the budget's alert waits out its 15 minutes.
    expect(named(alerts, 'EtcdNoDisruptionBudget').map((a) => a.state)).toEqual(['pending']);
    for (const quiet of ['EtcdProbeUnhealthy', 'EtcdNoLeader']) expect(named(alerts, quiet)).toEqual([]);
    expect(named(alerts, 'EtcdProbeDown').filter((a) => a.state === 'firing')).toEqual([]);
    console.log(
      `EtcdMemberDown: pending ${((pendingAt as number) - killedAt) / 1000} s after the kill, firing ${(firedAt - killedAt) / 1000} s after it ` +
        `(${(firedAt - activeAt) / 1000} s after Prometheus's activeAt; for: 30s, scrape and evaluation every 1 s, polled every 250 ms)`,
    );
  }, FIRE_BOUND_MS + 60_000);
});
