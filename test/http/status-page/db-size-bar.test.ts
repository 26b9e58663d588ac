import { describe, expect, it } from 'vitest';
import { dbSizeBar, formatPercent, quotaLevel } from '../../../src/http/status-page/db-size-bar.ts';
import { QUOTA_CRITICAL_RATIO, QUOTA_HIGH_RATIO } from '../../../src/probe/member-checks.ts';

const GiB = 2 ** 30;
const MiB = 2 ** 20;

function widths(markup: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [, cls, width] of markup.matchAll(/<rect class="bar-([a-z-]+)" x="[\d.]+" y="0" width="([\d.]+)"/g)) out[cls as string] = Number(width);
  return out;
}

function xOfQuotaMark(markup: string): number | null {
  const m = /<rect class="bar-quota" x="([\d.]+)"/.exec(markup);
  return m ? Number(m[1]) : null;
}

describe('dbSizeBar', () => {
  it('draws an empty database as an empty bar at 0%', () => {
    const out = dbSizeBar({ dbSizeBytes: 0, dbSizeInUseBytes: 0 }, 2 * GiB).markup;
    expect(widths(out)).toEqual({ track: 1000, allocated: 0, 'in-use': 0 });
    expect(out).toContain('0 B in use of 0 B allocated, 0% of the 2 GiB quota');
    expect(out).toContain('class="db db-ok"');
    expect(xOfQuotaMark(out)).toBeNull();
  });

  it('fills the bar at exactly 100% of the quota, critical, without an overflow mark', () => {
    const out = dbSizeBar({ dbSizeBytes: 2 * GiB, dbSizeInUseBytes: 2 * GiB }, 2 * GiB).markup;
    expect(widths(out)).toEqual({ track: 1000, allocated: 1000, 'in-use': 1000 });
    expect(out).toContain('2 GiB in use of 2 GiB allocated, 100% of the 2 GiB quota');
    expect(out).not.toContain('over quota');
    expect(out).toContain('class="db db-critical"');
    expect(xOfQuotaMark(out)).toBeNull();
  });

  it('rescales beyond the quota so the overflow shows past a quota mark', () => {
    const out = dbSizeBar({ dbSizeBytes: 2.5 * GiB, dbSizeInUseBytes: 2 * GiB }, 2 * GiB).markup;
    // The bar is 2.5 GiB long: the quota sits at 80% of it, the in-use part too.
    expect(widths(out)).toEqual({ track: 800, allocated: 1000, 'in-use': 800, quota: 3 });
    expect(xOfQuotaMark(out)).toBe(797);
    expect(out).toContain('125% of the 2 GiB quota: over quota');
    expect(out).toContain('class="db db-critical"');
  });

  it('shows fragmentation as the allocated part that is not in use', () => {
    const out = dbSizeBar({ dbSizeBytes: 1 * GiB, dbSizeInUseBytes: 256 * MiB }, 2 * GiB).markup;
    expect(widths(out)).toMatchObject({ allocated: 500, 'in-use': 125 });
    expect(out).toContain('256 MiB in use of 1 GiB allocated, 50% of the 2 GiB quota');
  });

  it('keeps a small database visible and says <1%', () => {
    const out = dbSizeBar({ dbSizeBytes: 20 * 1024, dbSizeInUseBytes: 16 * 1024 }, 2 * GiB).markup;
    expect(widths(out)).toMatchObject({ allocated: 2, 'in-use': 2 });
    expect(out).toContain('16 KiB in use of 20 KiB allocated, <1% of the 2 GiB quota'.replace('<', '&lt;'));
  });

  it('says the size is unknown, and draws no bar, when the member gave no Status', () => {
    const out = dbSizeBar(null, 2 * GiB).markup;
    expect(out).toContain('Database size unknown');
    expect(out).not.toContain('<svg');
  });

  it("grades with the verdict's DB_QUOTA_HIGH thresholds", () => {
    expect(quotaLevel(QUOTA_HIGH_RATIO - 0.001)).toBe('ok');
    expect(quotaLevel(QUOTA_HIGH_RATIO)).toBe('high');
    expect(quotaLevel(QUOTA_CRITICAL_RATIO)).toBe('critical');
    expect(quotaLevel(1.3)).toBe('critical');
  });

  it('never rounds a database short of its quota up to 100%', () => {
    expect(formatPercent(0.999)).toBe('99%');
    expect(formatPercent(1)).toBe('100%');
    expect(formatPercent(0.004)).toBe('<1%');
    expect(formatPercent(0)).toBe('0%');
  });
});
