import { describe, expect, it } from 'vitest';
import { renderVerdictSummary } from '../../src/cli/verdict-summary.ts';
import { healthzDocument, healthzSummaryDocument } from '../../src/http/documents.ts';
import { renderHealthzText } from '../../src/http/healthz-text.ts';
import { verdictBanner } from '../../src/http/status-page/verdict-banner.ts';
import { RoundJudge } from '../../src/probe/round-judge.ts';
import type { Snapshot } from '../../src/probe/snapshot.ts';
import { round, three } from './observation-builders.ts';
import { TEST_THRESHOLDS } from './snapshot-builder.ts';

// Issue 26, defect 2, as the newcomer saw it: member c goes down and comes back every round while the
// leadership moves between a and b; when c is down now, the reasons of equal severity (degraded) sorted
// by code put FREQUENT_LEADER_CHANGES and MEMBER_FLAPPING before MEMBER_UNREACHABLE, and people on call
// read the first card. Judged round after round as the prober does, then rendered by every surface.

const EXPECTED = ['MEMBER_UNREACHABLE', 'FREQUENT_LEADER_CHANGES', 'MEMBER_FLAPPING'];

/** 9 rounds 10 s apart: c down on even rounds, the leader a on rounds 0-1 mod 4 and b otherwise; c down in the last. */
function flappingWithElections(): Snapshot {
  const judge = new RoundJudge({ thresholds: TEST_THRESHOLDS, history: { windowMs: 3_600_000, maxBytes: 2 ** 24, checksMs: 900_000 }, mode: 'static' });
  let last: Snapshot | undefined;
  for (let i = 0; i < 9; i++) {
    const at = 1_000_000 + i * 10_000;
    const leader = i % 4 < 2 ? 'a' : 'b';
    const observations = round(three({ c: { state: i % 2 === 0 ? 'unreachable' : 'healthy' } }), { leader });
    last = judge.judge({ ...observations, startedAt: at - 5 }, at);
  }
  return last as Snapshot;
}

/** The codes in the order a text shows them, found by their first appearance after `from`. */
function orderIn(text: string, codes: readonly string[]): string[] {
  return [...codes].sort((x, y) => text.indexOf(x) - text.indexOf(y));
}

describe('reasons ordered for people on call, on every surface (issue 26, defect 2)', () => {
  const snapshot = flappingWithElections();

  it('judges the member down now first, then what the history says', () => {
    expect(snapshot.verdict.status).toBe('degraded');
    expect(snapshot.verdict.reasons.map((r) => r.code)).toEqual(EXPECTED);
  });

  it('keeps that order in the JSON, ?verbose, the status page and the CLI', () => {
    expect(healthzDocument(snapshot, 'strict').reasons.map((r) => r.code)).toEqual(EXPECTED);
    expect(healthzSummaryDocument(snapshot, 'strict').reasons.map((r) => r.code)).toEqual(EXPECTED);
    const verbose = renderHealthzText(snapshot, 'strict', false);
    expect(EXPECTED.every((c) => verbose.includes(`reason ${c}`))).toBe(true);
    expect(orderIn(verbose, EXPECTED)).toEqual(EXPECTED);
    const banner = verdictBanner(healthzDocument(snapshot, 'strict')).markup;
    expect(EXPECTED.every((c) => banner.includes(`<span class="reason-code">${c}</span>`))).toBe(true);
    expect(orderIn(banner, EXPECTED)).toEqual(EXPECTED);
    const cli = renderVerdictSummary(snapshot);
    expect(EXPECTED.every((c) => cli.includes(`  ${c} (degraded)`))).toBe(true);
    expect(orderIn(cli, EXPECTED)).toEqual(EXPECTED);
  });
});
