// Each step of `npm run test:image` prints its name, its outcome and how long it took.

/** The steps run so far: name and seconds. */
export interface StepLog {
  readonly timings: { name: string; seconds: number }[];
  readonly startedAt: number;
}

/** A fresh log starting now. */
export function newStepLog(): StepLog {
  return { timings: [], startedAt: performance.now() };
}

function seconds(since: number): number {
  return Math.round((performance.now() - since) / 100) / 10;
}

/** Runs one step, printing `[image] name ... ok (N s)`, and records it; a failure propagates after printing. */
export async function step<T>(log: StepLog, name: string, run: () => Promise<T>, describe?: (value: T) => string): Promise<T> {
  process.stdout.write(`[image] ${name} ...\n`);
  const start = performance.now();
  try {
    const value = await run();
    const took = seconds(start);
    log.timings.push({ name, seconds: took });
    const detail = describe ? `: ${describe(value)}` : '';
    process.stdout.write(`[image] ${name}: ok${detail} (${took} s)\n`);
    return value;
  } catch (error) {
    process.stdout.write(`[image] ${name}: FAILED after ${seconds(start)} s\n`);
    throw error;
  }
}

/** Seconds since the log started. */
export function elapsed(log: StepLog): number {
  return seconds(log.startedAt);
}
