import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The history's memory over a long run, measured in a process of its own (--expose-gc, nothing else on
// its heap): the heap it grows by, after collection, stays within its cap (HISTORY_MAX_BYTES in production).

const SCRIPT = fileURLToPath(new URL('../../../scripts/bench/history-memory.ts', import.meta.url));

describe('the round history over a long run', () => {
  it.each([
    [100_000, 4, 3],
    [60_000, 4, 7],
  ])('%i rounds within a %i MiB cap (%i members): heap growth within the cap, /history of an hour well under 50 ms', (rounds, capMiB, members) => {
    const run = spawnSync(process.execPath, ['--expose-gc', '--experimental-strip-types', '--no-warnings', SCRIPT, String(rounds), String(capMiB), String(members)], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as { capBytes: number; peakHeapGrowthBytes: number; kept: number; hourMaxMs: number };
    expect(result.kept).toBeGreaterThan(1000);
    expect(result.peakHeapGrowthBytes).toBeLessThanOrEqual(result.capBytes);
    expect(result.hourMaxMs).toBeLessThan(50);
  });
});
