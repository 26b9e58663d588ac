import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/** The unit tests' own temp folder: test/helpers/unit-tmpdir.ts fails the run when they leave anything in it. */
const UNIT_TMPDIR = join(tmpdir(), `etcd-probe-unit-tests-${process.pid}`);

// The integration suite starts real etcd clusters; on two cores, running those files one at a time
// keeps the timing assertions (answer within timeout + 500 ms) meaningful. Both integration projects
// set fileParallelism: false with the default sequence.groupOrder, so vitest puts their files in one
// sequential group (one file at a time across both projects), after the unit tests.
const integration = {
  include: ['test/integration/**/*.test.ts'],
  fileParallelism: false,
  // --expose-gc lets the leak test measure the heap after a collection; gRPC's DEP0123 warning
  // (TLS servername set to an IP) is expected and would only clutter the output.
  execArgv: ['--expose-gc', '--no-deprecation'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
  globalSetup: ['test/fixtures/etcd-global-setup.ts'],
};

// etcd 3.5 from Debian trixie (or ETCD_NEWER_SUITE), fetched by .ci/etcd-newer.sh, which exports ETCD35_BIN.
const suite = process.env.ETCD_NEWER_SUITE ?? 'trixie';
const etcd35 = process.env.ETCD35_BIN ?? join(process.env.ETCD_NEWER_HOME ?? join(homedir(), '.cache', `etcd-${suite}`), 'x/usr/bin/etcd');

export default defineConfig({
  test: {
    // The summary line (what ran, against which etcd, how long) ends every run; scripts/setup/run.sh adds it
    // back when the command line names its own reporters (those replace these).
    reporters: ['default', './test/helpers/summary-reporter.ts'],
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
        // etcd from PATH (Debian 12: 3.4.23), or ETCD_BIN.
        extends: true,
        test: { name: 'integration', ...integration },
      },
      {
        extends: true,
        test: {
          name: 'integration-3.5',
          ...integration,
          env: {
            ETCD_BIN: etcd35,
            ETCD_EXPECT_VERSION: '3.5',
            ETCD_FETCH_HINT: `. .ci/etcd-newer.sh && etcd_newer${process.env.ETCD_NEWER_SUITE ? ` ${suite}` : ''} (or set ETCD35_BIN)`,
          },
        },
      },
    ],
  },
});
