import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { STATUS_PAGE_CSP } from '../../../src/http/status-page/content-security-policy.ts';
import { MIN_REFRESH_MS } from '../../../src/http/status-page/page-model.ts';
import { renderStatusFragment, renderStatusPage } from '../../../src/http/status-page/status-page.ts';
import { three } from '../../probe/observation-builders.ts';
import { disruptionBudget } from '../../../src/probe/disruption.ts';
import { TEST_THRESHOLDS } from '../../probe/snapshot-builder.ts';
import { CHECKED_AT, modelOf, snapshotOf } from './snapshot-builder.ts';

function page(...args: Parameters<typeof snapshotOf>): string {
  return renderStatusPage(modelOf(snapshotOf(...args))).markup;
}

function hash(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}

describe('the status page', () => {
  it('is a standalone document: viewport meta, one inline style, one inline script, nothing fetched from elsewhere', () => {
    const out = page(three());
    expect(out).toMatch(/^<!doctype html>/);
    expect(out).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(out.match(/<style>/g)).toHaveLength(1);
    expect(out.match(/<script>/g)).toHaveLength(1);
    expect(out).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*stylesheet|(?:src|href)="(?:https?:)?\/\//);
  });

  it('carries a CSP that allows exactly its inline style and script, by hash', () => {
    const out = page(three());
    const style = /<style>([\s\S]*?)<\/style>/.exec(out)?.[1] ?? '';
    const script = /<script>([\s\S]*?)<\/script>/.exec(out)?.[1] ?? '';
    expect(STATUS_PAGE_CSP).toContain(`style-src ${hash(style)}`);
    expect(STATUS_PAGE_CSP).toContain(`script-src ${hash(script)}`);
    expect(STATUS_PAGE_CSP).toMatch(/^default-src 'none'/);
    expect(STATUS_PAGE_CSP).not.toContain('unsafe');
  });

  it.each([
    ['healthy', three(), 'No findings: every check passed.'],
    ['degraded', three({ c: { state: 'unreachable' } }), 'MEMBER_UNREACHABLE'],
    ['unhealthy', three({ a: { state: 'unhealthy' }, b: { state: 'unreachable' }, c: { state: 'unreachable' } }), 'QUORUM_LOST'],
  ] as const)('shows a %s verdict as a banner of that colour, with its reasons and hints', (status, members, text) => {
    const model = modelOf(snapshotOf(members));
    const out = renderStatusFragment(model).markup;
    expect(out).toContain(`<section class="verdict verdict-${status}"`);
    expect(out).toContain(`data-status="${status}"`);
    expect(out).toContain(text);
    for (const r of model.health.reasons) expect(out).toContain(r.hint.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#39;'));
  });

  it('shows one card per member and the leader', () => {
    const out = page(three(), { leader: 'b' });
    expect(out.match(/<article class="member /g)).toHaveLength(3);
    expect(out).toContain('Leader: m-b');
    expect(out).toContain('3 of 3 voting members healthy, can lose 1 more');
  });

  it('with no members known, says so and lists the endpoints with their errors', () => {
    const out = page([], { deadEndpoints: ['https://x:2379', 'https://y<z>:2379'] });
    expect(out).toContain('verdict-unhealthy');
    expect(out).toContain('No members known');
    expect(out).not.toContain('<article');
    expect(out).toContain('<code>https://x:2379</code> (configured): <code>DNS_FAILURE</code>');
    expect(out).toContain('https://y&lt;z&gt;:2379');
    expect(out).toContain('No member answered, so quorum is unknown');
    expect(out).toContain("Alarms</h2><p>Unknown: neither the alarm list nor any member's Status answered.");
  });

  it('lists active alarms with their member and source', () => {
    const out = page(three(), { alarmList: [{ memberId: 'c', alarm: 'NOSPACE' }] });
    expect(out).toContain('<li><span class="badge badge-alarm">NOSPACE</span> on m-c</li>');
    expect(out).toContain('Read from the alarm list.');
    expect(page(three())).toContain('No active alarms (read from the alarm list).');
  });

  it('says when and how the round was checked', () => {
    const out = page(three());
    expect(out).toContain('Checked <time datetime="2026-12-02T12:00:00.000Z">2026-12-02 12:00:00 UTC</time> (round took 5 ms)');
    expect(out).toContain('mode static · policy quorum · cache TTL 5 s · cluster <code>c1a55e</code>');
  });

  it('schedules the next refresh for when the cached round goes stale, never sooner than the floor', () => {
    const snapshot = snapshotOf(three());
    const next = (settings: Parameters<typeof modelOf>[1]) =>
      Number(/data-next-refresh-ms="(\d+)"/.exec(renderStatusFragment(modelOf(snapshot, settings)).markup)?.[1]);
    expect(next({ cacheTtlMs: 5000, ageMs: 2000 })).toBe(3050);
    expect(next({ cacheTtlMs: 0 })).toBe(MIN_REFRESH_MS);
    expect(next({ cacheTtlMs: 5000, ageMs: 9000 })).toBe(MIN_REFRESH_MS);
  });

  it('puts the verdict in the tab title and the fragment, so the script can update both', () => {
    const out = page(three({ c: { state: 'unreachable' } }));
    expect(out).toContain('<title>Degraded · etcd-probe</title>');
    expect(out).toContain('data-title="Degraded · etcd-probe"');
  });

  it('escapes hostile strings from the network everywhere they appear', () => {
    const evil = '</script><script>alert(1)</script>';
    const out = page([{ id: 'a', name: evil }, { id: 'b', name: 'm-b', state: 'unreachable' }, { id: 'c', name: 'm-c' }], {
      deadEndpoints: [`https://${evil}:2379`],
    });
    // One script element: the page's own. The hostile name shows as text in the card, reasons and leader.
    expect(out.match(/<script>/g)).toHaveLength(1);
    expect(out.match(/&lt;\/script&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;/g)?.length).toBeGreaterThanOrEqual(3);
  });
});

describe('the status page: safe to stop', () => {
  it('marks each member safe or not to stop, from the disruption budget, with why not in the title', () => {
    const snapshot = snapshotOf(three({ c: { state: 'unreachable' } }));
    const budget = disruptionBudget(snapshot.view, snapshot.verdict, TEST_THRESHOLDS, CHECKED_AT);
    const base = modelOf(snapshot);
    const out = renderStatusFragment({ ...base, budget }).markup;
    const card = (id: string) => new RegExp(`<article class="member[^"]*" data-member-id="${id}">[\\s\\S]*?</header>`).exec(out)?.[0] ?? '';
    // The dead member is not "safe to stop" in green beside its red "Unreachable" (issue 26): it is already down.
    expect(card('c')).toMatch(/<span class="badge badge-down" title="it serves nothing now[^"]*">already down<\/span>/);
    expect(card('c')).not.toContain('badge-safe');
    expect(card('a')).toMatch(/<span class="badge badge-unsafe" title="only 1 of 3 voting members answer[^"]*">not safe to stop<\/span>/);
    expect(renderStatusFragment(base).markup).not.toContain('safe to stop');
    const healthy = snapshotOf(three());
    const all = renderStatusFragment({ ...modelOf(healthy), budget: disruptionBudget(healthy.view, healthy.verdict, TEST_THRESHOLDS, CHECKED_AT) }).markup;
    expect(all).toContain('<span class="badge badge-safe" title="stopping it keeps quorum (GET /disruption/c)">safe to stop</span>');
    expect(all).not.toContain('already down');
  });

  it('puts the worst member first: a dead member leads the cards, whatever its ID (issue 26)', () => {
    const out = renderStatusFragment(modelOf(snapshotOf(three({ c: { state: 'unreachable' }, b: { state: 'unhealthy' } })))).markup;
    expect([...out.matchAll(/data-member-id="(\w+)"/g)].map((m) => m[1])).toEqual(['c', 'b', 'a']);
    const fine = renderStatusFragment(modelOf(snapshotOf(three()))).markup;
    expect([...fine.matchAll(/data-member-id="(\w+)"/g)].map((m) => m[1])).toEqual(['a', 'b', 'c']);
  });
});

