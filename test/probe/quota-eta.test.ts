import { describe, expect, it } from 'vitest';
import { currentTrend, estimateQuotaEta, memberQuotaEta, type SizeSample } from '../../src/probe/quota-eta.ts';

const MIB = 2 ** 20;
const QUOTA = 100 * MIB;
const HOUR = 3_600_000;
const WINDOW = 6 * HOUR;

/** One sample a minute from `from` bytes, `perHour` bytes an hour, for `minutes`; `wobble(i)` adds noise. */
function line(from: number, perHour: number, minutes: number, wobble: (i: number) => number = () => 0, start = 0): SizeSample[] {
  return Array.from({ length: minutes + 1 }, (_, i) => ({ at: start + i * 60_000, bytes: Math.round(from + (perHour * i) / 60 + wobble(i)) }));
}

describe('estimateQuotaEta', () => {
  it('serves the time to the quota for a steady rise above the floor', () => {
    // 60 → 72 MiB over 2 h at 6 MiB/h: 28 MiB left, 4 h 40 m.
    const eta = estimateQuotaEta(line(60 * MIB, 6 * MIB, 120), QUOTA, WINDOW);
    expect(eta.served).toBe(true);
    if (!eta.served) return;
    expect(eta.etaMs / HOUR).toBeCloseTo(28 / 6, 3);
    expect(eta.bytesPerSecond).toBe(Math.round((6 * MIB) / 3600));
  });

  it('tolerates wobble within 10 % of the rise (a compaction now and then)', () => {
    const eta = estimateQuotaEta(line(60 * MIB, 6 * MIB, 120, (i) => (i % 5 === 0 ? -0.3 * MIB : 0)), QUOTA, WINDOW);
    expect(eta.served).toBe(true);
  });

  it.each([
    ['below-floor', line(30 * MIB, 6 * MIB, 120)],
    ['too-few-samples', line(60 * MIB, 6 * MIB, 120).filter((_, i) => i % 20 === 0)],
    ['too-short', line(60 * MIB, 6 * MIB, 60)],
    ['not-rising', line(60 * MIB, 0, 120)],
    ['not-rising', line(70 * MIB, -3 * MIB, 120)],
    ['unsteady', line(60 * MIB, 1 * MIB, 120, (i) => (i % 2 === 0 ? 0.9 * MIB : 0))],
    ['slowing', [...line(60 * MIB, 12 * MIB, 60), ...line(72 * MIB, 1 * MIB, 60, () => 0, 61 * 60_000)]],
    ['accelerating', [...line(60 * MIB, 0, 60), ...line(60 * MIB, 6 * MIB, 60, () => 0, 61 * 60_000)]],
    ['too-far', line(50 * MIB, 0.5 * MIB, 120)],
    ['at-quota', line(95 * MIB, 6 * MIB, 120)],
  ] as const)('withholds the ETA: %s', (why, samples) => {
    const eta = estimateQuotaEta(samples, QUOTA, WINDOW);
    expect(eta).toMatchObject({ served: false, why });
  });

  it('withdraws the ETA after a compaction and defrag free space, until a new steady rise spans a quarter window', () => {
    const before = line(60 * MIB, 6 * MIB, 120);
    const after = line(55 * MIB, 6 * MIB, 120, () => 0, 121 * 60_000);
    const history = [...before, ...after];
    // Right after the fall the trend restarts: too few rounds, then too short.
    expect(estimateQuotaEta(history.slice(0, 122), QUOTA, WINDOW)).toMatchObject({ served: false, why: 'too-few-samples' });
    const early = history.slice(0, 121 + 60);
    expect(currentTrend(early, QUOTA)).toHaveLength(60);
    expect(estimateQuotaEta(early, QUOTA, WINDOW)).toMatchObject({ served: false, why: 'too-short' });
    expect(estimateQuotaEta(history, QUOTA, WINDOW)).toMatchObject({ served: true });
  });
});

describe('memberQuotaEta: in use and allocated', () => {
  const inUse = line(60 * MIB, 6 * MIB, 120);

  it('serves the earlier of the two: the allocated size rising faster reaches the quota first', () => {
    const eta = memberQuotaEta(inUse, line(62 * MIB, 7 * MIB, 120), QUOTA, WINDOW);
    expect(eta).toMatchObject({ served: true, basis: 'allocated' });
    if (eta.served) expect(eta.etaMs / HOUR).toBeCloseTo((100 - 76) / 7, 3);
  });

  it('fits the data in use when the allocated size is flat (a file inflated by old fragmentation)', () => {
    expect(memberQuotaEta(inUse, line(90 * MIB, 0, 120), QUOTA, WINDOW)).toMatchObject({ served: true, basis: 'in-use' });
  });

  it('serves none while the allocated size accelerates (its free pages used up), rather than a late one', () => {
    const allocated = [...line(80 * MIB, 1 * MIB, 60), ...line(81 * MIB, 8 * MIB, 60, () => 0, 61 * 60_000)];
    expect(memberQuotaEta(inUse, allocated, QUOTA, WINDOW)).toMatchObject({ served: false, why: 'accelerating' });
  });
});
