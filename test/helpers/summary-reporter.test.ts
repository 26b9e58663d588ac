import { describe, expect, it } from 'vitest';
import { fileKinds, formatDuration, summaryLine } from './summary-reporter.ts';

describe('the summary line of npm test', () => {
  it('names each kind of test with its count, the etcd version and the whole time', () => {
    const line = summaryLine({ unit: 812, integration: 143, browser: 5, prometheus: 24, passed: 955, failed: 0, skipped: 0 }, '3.4.23', 192);
    expect(line).toBe('ran 812 unit and 143 integration tests (etcd 3.4.23; 5 in chromium, 24 with Prometheus) in 3m12s: 955 passed, 0 failed');
  });

  it('leaves out what did not run, and says when tests were skipped or failed', () => {
    expect(summaryLine({ unit: 19, integration: 0, browser: 0, prometheus: 0, passed: 18, failed: 1, skipped: 0 }, null, 4.4)).toBe(
      'ran 19 unit tests in 4s: 18 passed, 1 failed',
    );
    expect(summaryLine({ unit: 0, integration: 7, browser: 0, prometheus: 0, passed: 5, failed: 0, skipped: 2 }, '3.5.17', 61)).toBe(
      'ran 7 integration tests (etcd 3.5.17) in 1m01s: 5 passed, 0 failed, 2 skipped',
    );
    expect(summaryLine({ unit: 0, integration: 0, browser: 0, prometheus: 0, passed: 0, failed: 1, skipped: 0 }, null, 0)).toBe(
      'ran no tests in 0s: 0 passed, 1 failed',
    );
  });

  it('formats durations as minutes and zero-padded seconds', () => {
    expect(formatDuration(59.4)).toBe('59s');
    expect(formatDuration(60)).toBe('1m00s');
    expect(formatDuration(3725)).toBe('62m05s');
  });

  it("tells browser and Prometheus test files by what they import", () => {
    expect(fileKinds("import { launchChromium } from '../helpers/browser.ts';\n")).toEqual({ browser: true, prometheus: false });
    expect(fileKinds("import { promtool } from '#lab/prometheus/prometheus.ts';\n")).toEqual({ browser: false, prometheus: true });
    expect(fileKinds("import {\n  PrometheusServer,\n  promtool,\n} from '#lab/prometheus/prometheus.ts';\n")).toEqual({ browser: false, prometheus: true });
    expect(fileKinds("import { get } from '../helpers/http.ts';\n")).toEqual({ browser: false, prometheus: false });
    // Only an import at the start of a line counts, not the same words inside a string.
    expect(fileKinds("  expect(source).toContain(\"import { a } from '../helpers/browser.ts';\");\n")).toEqual({ browser: false, prometheus: false });
  });
});
