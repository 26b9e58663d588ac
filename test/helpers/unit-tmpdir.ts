import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';

// The unit project's globalSetup: its tests get a temp folder of their own (TMPDIR, set in vitest.config.ts),
// and the run fails when they leave anything in it, naming what was left.

/** What may stay until the end of the run: the chart renderer's build cache (test/helpers/chart-render.ts). */
const CACHES = ['etcd-probe-chart-render'];

/** Makes the folder empty; returns the check that runs after every test file. */
export default function setup(project: TestProject): () => void {
  const dir = project.config.env.TMPDIR;
  if (!dir) throw new Error('the unit project has no TMPDIR of its own (vitest.config.ts)');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return () => {
    const left = readdirSync(dir).filter((name) => !CACHES.includes(name));
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) {
      throw new Error(`the unit tests left ${left.join(', ')} in their temp folder: remove what a test makes (afterAll, onTestFinished)`);
    }
  };
}
