import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

/** A project's own temp folder: test/helpers/own-tmpdir.ts fails the run when its tests leave anything in it. */
const ownTmpdir = (project: string) => join(tmpdir(), `etcd-probe-${project}-tests-${process.pid}`);

// The integration suite starts real etcd clusters; on two cores, running those files one at a time
// keeps the timing assertions (answer within timeout + 500 ms) meaningful: fileParallelism false, and
// a group of its own for each project (sequence.groupOrder: vitest runs groups one after the other,
// after the unit tests). isolate false: one worker process runs all of a project's files in turn,
// instead of a new process (and a new import of everything) per file; the files close what they open,
// and the leak tests compare counts of their own cluster's sockets only.
const integration = (project: string, groupOrder: number) => ({
  include: ['test/integration/**/*.test.ts'],
  fileParallelism: false,
  isolate: false,
  sequence: { groupOrder },
  // --expose-gc lets the leak test measure the heap after a collection; gRPC's DEP0123 warning
  // (TLS servername set to an IP) is expected and would only clutter the output.
  execArgv: ['--expose-gc', '--no-deprecation'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
  globalSetup: ['lab/etcd/global-setup.ts', 'test/helpers/own-tmpdir.ts'],
  // NODE_DISABLE_COMPILE_CACHE: the processes the tests start (npm among them) would otherwise leave Node's
  // compile cache in the project's temp folder, which the run counts as a test's leftover.
  env: { TMPDIR: ownTmpdir(project), NODE_DISABLE_COMPILE_CACHE: '1' },
});

// Files about the service itself, whose outcome does not depend on how etcd behaves (processes, the CLI,
// the listener, caches and leaks of our own clients, the Kubernetes stand-in, Prometheus rules, the demo,
// the netns fixture): they run against one etcd, in project integration (3.4), not again in
// integration-3.5. Every other file runs on both versions; a new file does too unless it is listed here.
const ETCD_VERSION_NEUTRAL = [
  'api-client',
  'cli',
  'demo',
  'fake-fleet',
  'fake-fleet-kubectl',
  'fake-kube-kubectl',
  'fake-kube-port-forward',
  'fleet-capi',
  'fleet-file',
  'kube-leaks',
  'listener-security',
  'main-process',
  'netns-fixture',
  'overload',
  'prometheus-alerts',
  'readme-start',
  'resource-leaks',
  'secret-kubeconfig',
  'secret-leaks',
  'single-flight',
  'status-page',
].map((name) => `test/integration/${name}.test.ts`);

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
          env: { TMPDIR: ownTmpdir('unit') },
          globalSetup: ['./test/helpers/own-tmpdir.ts'],
        },
      },
      {
        // etcd from PATH (Debian 12: 3.4.23), or ETCD_BIN.
        extends: true,
        test: { name: 'integration', ...integration('integration', 1) },
      },
      {
        extends: true,
        test: {
          name: 'integration-3.5',
          ...integration('integration-3.5', 2),
          exclude: [...configDefaults.exclude, ...ETCD_VERSION_NEUTRAL],
          env: {
            ...integration('integration-3.5', 2).env,
            ETCD_BIN: etcd35,
            ETCD_EXPECT_VERSION: '3.5',
            ETCD_FETCH_HINT: `. .ci/etcd-newer.sh && etcd_newer${process.env.ETCD_NEWER_SUITE ? ` ${suite}` : ''} (or set ETCD35_BIN)`,
          },
        },
      },
    ],
  },
});
