import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TestProject } from 'vitest/node';

// globalSetup of every project: its tests get a temp folder of their own (TMPDIR, set in vitest.config.ts,
// named etcd-probe-<project>-tests-<pid of the vitest run>), and the run fails when they leave anything in
// it, naming what was left. Child processes (the service, the CLI, the demo) inherit TMPDIR, so their
// leftovers count too.

/** What may stay until the end of the run: the chart renderer's build cache (test/helpers/chart-render.ts). */
const CACHES = ['etcd-probe-chart-render'];

const OWN = /^etcd-probe-[\w.-]+-tests-(\d+)$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Makes the folder empty (and removes those of earlier runs that died); returns the check that runs at the end. */
export default function setup(project: TestProject): () => void {
  const dir = project.config.env.TMPDIR;
  if (!dir) throw new Error(`the ${project.name} project has no TMPDIR of its own (vitest.config.ts)`);
  // A run killed before its teardown leaves its folder behind; its pid tells that nobody uses it.
  for (const entry of readdirSync(dirname(dir))) {
    const pid = OWN.exec(entry)?.[1];
    if (pid && Number(pid) !== process.pid && !alive(Number(pid))) rmSync(`${dirname(dir)}/${entry}`, { recursive: true, force: true });
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return () => {
    const left = readdirSync(dir).filter((name) => !CACHES.includes(name));
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) {
      throw new Error(`the ${project.name} tests left ${left.join(', ')} in their temp folder: remove what a test makes (afterAll, onTestFinished)`);
    }
  };
}
