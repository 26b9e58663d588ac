import { describe, expect, it } from 'vitest';
import { memberSlots, timeline, TIMELINE_SLOTS } from '../../../src/http/status-page/timeline.ts';
import { historyReport } from '../../../src/probe/history/history-report.ts';
import { RoundHistory } from '../../../src/probe/history/round-history.ts';
import { rec, type RecordSpec } from '../../probe/history/record-builders.ts';

const HOUR = 3_600_000;

/** History of rounds given as [second, spec], reported at `nowSeconds`. */
function reportOf(rounds: [number, RecordSpec][], nowSeconds = 3600) {
  const history = new RoundHistory({ windowMs: HOUR, maxBytes: 2 ** 20, checksMs: 0 });
  for (const [s, spec] of rounds) history.add(rec(s, spec));
  return historyReport(history, { since: null, memberId: null }, nowSeconds * 1000);
}

describe('the status page timeline', () => {
  it('has one slot per minute, each the worst state its rounds saw, and none where no round ran', () => {
    const report = reportOf([
      [30, {}],
      [90, { states: { c: 'unreachable' } }],
      [100, {}],
      [150, { states: { c: 'unhealthy' } }],
    ]);
    const slots = memberSlots(report, 'c');
    expect(slots).toHaveLength(TIMELINE_SLOTS);
    expect(slots.slice(0, 4)).toEqual(['healthy', 'unreachable', 'degraded', 'none']);
    expect(memberSlots(report, 'a').slice(0, 3)).toEqual(['healthy', 'healthy', 'healthy']);
  });

  it('renders strips with titles, a summary per member with its last failure, and leader changes marked', () => {
    const report = reportOf([
      [30, {}],
      [90, { states: { c: 'unreachable' } }],
      [150, { leader: 'b', term: 3 }],
    ]);
    const markup = timeline(report, report.records.at(-1) ?? null).markup;
    expect(markup).toContain('<h2>Last 60 minutes <span class="muted">(3 rounds, 1 leader election (▲); one slot per 60 s)</span></h2>');
    expect(markup).toContain('<span class="mark" title="00:02:30 m-a → m-b">▲</span>');
    expect(markup).toMatch(/<span class="tl-name">m-c<\/span><span class="tl-strip" role="img" aria-label="m-c: healthy in 67% of rounds · 2 changes · last failure 00:01:30 UTC: CONNECTION_REFUSED CONNECTION_REFUSED">/);
    expect(markup).toContain('<span class="slot slot-unreachable" title="00:01:00 unreachable"></span>');
    expect((markup.match(/class="slot slot-/g) ?? []).length).toBe(3 * TIMELINE_SLOTS + 4);
  });

  it('says that history starts with the service when there is none', () => {
    expect(timeline(reportOf([]), null).markup).toContain('No rounds yet. History is kept in memory only and starts with the service.');
  });
});
