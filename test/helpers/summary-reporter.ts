import { readFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';
import { etcdVersion } from '#lab/etcd/binary.ts';

// The last line of `npm test`: what ran (unit, integration against which etcd, how many in a browser or
// against Prometheus) and how long the whole took, from `npm test`'s start (scripts/setup/run.sh sets
// TEST_RUN_STARTED_AT) or else from vitest's.

/** What one test file drives besides the code: found from its imports, so a new file is counted too. */
export interface FileKinds {
  readonly browser: boolean;
  readonly prometheus: boolean;
}

/** Whether a test file's source imports the chromium helper or the lab's Prometheus. */
export function fileKinds(source: string): FileKinds {
  return {
    browser: /^import [^;]*from '(?:\.\.?\/)+helpers\/browser\.ts';/m.test(source),
    prometheus: /^import [^;]*from '#lab\/prometheus\/prometheus\.ts';/m.test(source),
  };
}

/** Counts of one run. */
export interface RunCounts {
  readonly unit: number;
  readonly integration: number;
  readonly browser: number;
  readonly prometheus: number;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** 192 → "3m12s", 42 → "42s". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** The summary line, e.g. "ran 812 unit and 143 integration tests (etcd 3.4.23; 5 in chromium, 24 with Prometheus) in 3m12s: 955 passed, 0 failed". */
export function summaryLine(counts: RunCounts, etcd: string | null, seconds: number): string {
  const kinds: string[] = [];
  if (counts.unit > 0) kinds.push(`${counts.unit} unit`);
  if (counts.integration > 0) kinds.push(`${counts.integration} integration`);
  const details: string[] = [];
  if (etcd !== null && counts.integration > 0) details.push(`etcd ${etcd}`);
  const extras: string[] = [];
  if (counts.browser > 0) extras.push(`${counts.browser} in chromium`);
  if (counts.prometheus > 0) extras.push(`${counts.prometheus} with Prometheus`);
  if (extras.length > 0) details.push(extras.join(', '));
  const what = kinds.length > 0 ? `${kinds.join(' and ')} tests` : 'no tests';
  const detail = details.length > 0 ? ` (${details.join('; ')})` : '';
  const skipped = counts.skipped > 0 ? `, ${counts.skipped} skipped` : '';
  return `ran ${what}${detail} in ${formatDuration(seconds)}: ${counts.passed} passed, ${counts.failed} failed${skipped}`;
}

function countRun(modules: readonly TestModule[], kindsOf: (file: string) => FileKinds): RunCounts {
  const counts = { unit: 0, integration: 0, browser: 0, prometheus: 0, passed: 0, failed: 0, skipped: 0 };
  for (const module of modules) {
    const tests = [...module.children.allTests()];
    const kinds = kindsOf(module.moduleId);
    // Both integration projects (etcd 3.4 and integration-3.5) count as integration.
    if (module.project.name.startsWith('integration')) counts.integration += tests.length;
    else counts.unit += tests.length;
    if (kinds.browser) counts.browser += tests.length;
    if (kinds.prometheus) counts.prometheus += tests.length;
    let failed = 0;
    for (const test of tests) {
      const state = test.result().state;
      if (state === 'passed') counts.passed++;
      else if (state === 'failed') failed++;
      else counts.skipped++;
    }
    // A file that fails as a whole (an import, a beforeAll) reports no failed test: count it as one.
    counts.failed += failed === 0 && module.state() === 'failed' ? 1 : failed;
  }
  return counts;
}

function readKinds(file: string): FileKinds {
  try {
    return fileKinds(readFileSync(file, 'utf8'));
  } catch {
    return { browser: false, prometheus: false };
  }
}

/** Prints the summary line after the run; added to every run by vitest.config.ts and scripts/setup/run.sh. */
export class SummaryReporter implements Reporter {
  #startedMs = Date.now();

  onInit(): void {
    const fromScript = Number(process.env.TEST_RUN_STARTED_AT);
    if (Number.isFinite(fromScript) && fromScript > 0) this.#startedMs = fromScript * 1000;
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const counts = countRun(modules, readKinds);
    // The etcd of each integration project that ran, e.g. "3.4.23 and 3.5.16".
    const binaries = new Set(
      modules.filter((m) => m.project.name.startsWith('integration')).map((m) => (m.project.config.env?.ETCD_BIN as string | undefined) ?? process.env.ETCD_BIN ?? 'etcd'),
    );
    const versions = [...binaries].map((binary) => {
      try {
        return etcdVersion(binary);
      } catch {
        return 'not found';
      }
    });
    const etcd = versions.length > 0 ? versions.sort().join(' and ') : null;
    process.stdout.write(`\n${summaryLine(counts, etcd, (Date.now() - this.#startedMs) / 1000)}\n`);
  }
}

// vitest loads a reporter given by path (--reporter=./test/helpers/summary-reporter.ts) from the default export.
export default SummaryReporter;
