import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '#lab/ports/free-port.ts';

// Lab: Debian's `prometheus` package (promtool and a real Prometheus server), each server in its
// own temp folder with its own config and storage, on a free loopback port. The package's own systemd
// service plays no part.

const INSTALL = 'The alert tests need Prometheus 2.x on PATH: apt-get install prometheus (.ci/run installs it).';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Runs promtool with arguments; throws a clear error when it is not installed. */
export function promtool(args: readonly string[], options: { cwd?: string; input?: string } = {}): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { encoding: 'utf8', ...options });
  if (result.error) throw new Error(`cannot run promtool: ${result.error.message}. ${INSTALL}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** One alert as Prometheus's /api/v1/alerts lists it. */
export interface ActiveAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly state: 'pending' | 'firing';
  readonly activeAt: string;
}

/** What a test server scrapes and evaluates. */
export interface PrometheusOptions {
  /** host:port of the target, scraped at /metrics. */
  readonly target: string;
  readonly job: string;
  readonly ruleFiles: readonly string[];
  readonly scrapeInterval: string;
  readonly evaluationInterval: string;
}

/** A real Prometheus server for one test file; stop() kills it and removes its folder. */
export class PrometheusServer {
  readonly url: string;
  readonly dir: string;
  readonly #child: ChildProcess;

  private constructor(url: string, dir: string, child: ChildProcess) {
    this.url = url;
    this.dir = dir;
    this.#child = child;
  }

  /** Writes a config, starts the server and waits until it is ready (its /-/ready). */
  static async start(options: PrometheusOptions): Promise<PrometheusServer> {
    const version = spawnSync('prometheus', ['--version'], { encoding: 'utf8' });
    if (version.error) throw new Error(`cannot run prometheus: ${version.error.message}. ${INSTALL}`);
    const dir = mkdtempSync(join(tmpdir(), 'etcd-probe-prometheus-'));
    const config = [
      'global:',
      `  scrape_interval: ${options.scrapeInterval}`,
      `  evaluation_interval: ${options.evaluationInterval}`,
      'rule_files:',
      ...options.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`),
      'scrape_configs:',
      `  - job_name: ${JSON.stringify(options.job)}`,
      `    scrape_timeout: ${options.scrapeInterval}`,
      '    static_configs:',
      `      - targets: [${JSON.stringify(options.target)}]`,
      '',
    ].join('\n');
    writeFileSync(join(dir, 'prometheus.yml'), config);
    const [port] = (await freePorts(1)) as [number];
    const log = openSync(join(dir, 'prometheus.log'), 'a');
    const child = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', log, log] },
    );
    closeSync(log);
    running.add(child);
    child.once('exit', () => running.delete(child));
    const server = new PrometheusServer(`http://127.0.0.1:${port}`, dir, child);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) break;
      const ready = await fetch(`${server.url}/-/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
      if (ready) return server;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await server.stop(false);
    throw new Error(`prometheus did not become ready; its log:\n${readFileSync(join(dir, 'prometheus.log'), 'utf8')}`);
  }

  /** The alerts Prometheus holds now, pending and firing. */
  async alerts(): Promise<ActiveAlert[]> {
    const response = await fetch(`${this.url}/api/v1/alerts`, { signal: AbortSignal.timeout(2000) });
    const body = (await response.json()) as { status: string; data: { alerts: ActiveAlert[] } };
    if (body.status !== 'success') throw new Error(`/api/v1/alerts: ${JSON.stringify(body)}`);
    return body.data.alerts;
  }

  /** The result of an instant query. */
  async query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
    const response = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expr)}`, { signal: AbortSignal.timeout(2000) });
    const body = (await response.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
    if (body.status !== 'success') throw new Error(`query ${expr}: ${JSON.stringify(body)}`);
    return body.data.result;
  }

  /** When every rule group had last been evaluated (the earliest of them), in epoch ms; 0 before the first. */
  async lastEvaluation(): Promise<number> {
    const response = await fetch(`${this.url}/api/v1/rules`, { signal: AbortSignal.timeout(2000) });
    const body = (await response.json()) as { data: { groups: { lastEvaluation?: string }[] } };
    const times = body.data.groups.map((g) => Date.parse(g.lastEvaluation ?? '') || 0);
    return times.length === 0 ? 0 : Math.min(...times);
  }

  /** The rule groups as loaded, for checking that the rule file was read. */
  async ruleNames(): Promise<string[]> {
    const response = await fetch(`${this.url}/api/v1/rules`, { signal: AbortSignal.timeout(2000) });
    const body = (await response.json()) as { data: { groups: { rules: { name: string }[] }[] } };
    return body.data.groups.flatMap((g) => g.rules.map((r) => r.name));
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its folder unless asked to keep it. */
  async stop(removeDir = true): Promise<void> {
    const child = this.#child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    if (removeDir) rmSync(this.dir, { recursive: true, force: true });
  }
}
