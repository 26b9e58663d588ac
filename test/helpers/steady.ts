import { isDeepStrictEqual } from 'node:util';

/**
 * Samples until two samples `intervalMs` apart are equal (the counts have stopped moving), or the time
 * runs out; returns the last sample. For leak checks that compare resources before and after: waiting
 * for the state to settle instead of a fixed time is both quicker and steadier under load.
 */
export async function steady<T>(sample: () => T, intervalMs = 100, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = sample();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const next = sample();
    if (isDeepStrictEqual(next, last)) return next;
    last = next;
  }
  return last;
}
