import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/** The unit tests' own temp folder: test/helpers/unit-tmpdir.ts fails the run when they leave anything in it. */
const UNIT_TMPDIR = join(tmpdir(), `etcd-probe-unit-tests-${process.pid}`);

export default defineConfig({
  test: {
    // The summary line (what ran, against which etcd, how long) ends every run; scripts/setup/run.sh adds it
    // back when the command line names its own reporters (those replace these).
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // The integration suite starts real etcd clusters; on two cores, running those files one at a time
    // keeps the timing assertions (answer within timeout + 500 ms) meaningful.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**'],
          env: { TMPDIR: UNIT_TMPDIR },
          globalSetup: ['./test/helpers/unit-tmpdir.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          fileParallelism: false,
          // --expose-gc lets the leak test measure the heap after a collection; gRPC's DEP0123 warning
          // (TLS servername set to an IP) is expected and would only clutter the output.
          execArgv: ['--expose-gc', '--no-deprecation'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
