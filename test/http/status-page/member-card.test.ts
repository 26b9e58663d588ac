import { describe, expect, it } from 'vitest';
import { memberCard, memberState } from '../../../src/http/status-page/member-card.ts';
import { kubeFacts, node, pod, three } from '../../probe/observation-builders.ts';
import { probeError } from '../../../src/probe/outcome.ts';
import { modelOf, QUOTA, snapshotOf } from './snapshot-builder.ts';
import { compareHashes } from '../../../src/probe/data-check/compare-hashes.ts';
import { nextFindings } from '../../../src/probe/data-check/data-checks.ts';

function cards(...args: Parameters<typeof snapshotOf>) {
  const model = modelOf(snapshotOf(...args));
  return new Map(model.members.members.map((m) => [m.id, { doc: m, markup: memberCard(m, QUOTA).markup }]));
}

function card(all: ReturnType<typeof cards>, id: string) {
  const found = all.get(id);
  if (!found) throw new Error(`no member ${id}`);
  return found;
}

describe('memberCard', () => {
  it('badges the leader, and only the leader', () => {
    const all = cards(three(), { leader: 'b' });
    expect(card(all, 'b').markup).toContain('badge-leader');
    expect(card(all, 'a').markup).not.toContain('badge-leader');
    expect(card(all, 'c').markup).not.toContain('badge-leader');
    for (const { markup } of all.values()) expect(markup).not.toContain('badge-learner');
  });

  it('badges a learner, which is healthy when it answers Status', () => {
    const all = cards([...three(), { id: 'd', name: 'm-d', learner: true }]);
    const d = card(all, 'd');
    expect(d.markup).toContain('<span class="badge badge-learner">learner</span>');
    expect(d.markup).not.toContain('badge-leader');
    expect(memberState(d.doc)).toBe('healthy');
  });

  it('shows latency, version, raft index and the database of a healthy member', () => {
    const { markup } = card(cards(three({ a: { raftIndex: 4242, version: '3.5.21', dbSizeBytes: 1 * 2 ** 30, dbSizeInUseBytes: 2 ** 29 } })), 'a');
    expect(markup).toContain('Healthy · 3 ms');
    expect(markup).toContain('<dd>3.5.21</dd>');
    expect(markup).toContain('index 4242 · applied 4242 · term 2');
    expect(markup).toContain('512 MiB in use of 1 GiB allocated, 50% of the 2 GiB quota');
  });

  it('shows an unreachable member with its error, and its size, version and raft as unknown', () => {
    const { doc, markup } = card(cards(three({ c: { state: 'unreachable' } })), 'c');
    expect(memberState(doc)).toBe('unreachable');
    expect(markup).toContain('class="member member-unreachable"');
    expect(markup).toContain('<code>CONNECTION_REFUSED</code> connection refused');
    expect(markup).toContain('<dt>Version</dt><dd>unknown</dd>');
    expect(markup).toContain('Database size unknown');
  });

  it('names an unstarted member by ID and never calls it healthy', () => {
    const { doc, markup } = card(cards(three({ c: { state: 'unstarted' } })), 'c');
    expect(memberState(doc)).toBe('unstarted');
    expect(markup).toContain('<h3>member c</h3>');
    expect(markup).toContain('Added, never started');
  });

  it('escapes a hostile member name and error message', () => {
    const all = cards([{ id: 'a', name: '<script>alert(1)</script>' }, { id: 'b', name: 'b"><img src=x onerror=alert(2)>' }]);
    const markup = [...all.values()].map((c) => c.markup).join('');
    expect(markup).not.toMatch(/<script|<img/);
    expect(markup).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(markup).toContain('b&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
  });

  it('shows alarms raised on the member as badges', () => {
    const { markup } = card(cards(three(), { alarmList: [{ memberId: 'b', alarm: 'NOSPACE' }] }), 'b');
    expect(markup).toContain('<span class="badge badge-alarm">NOSPACE</span>');
  });

  it('names the node and etcd pod in the Kubernetes modes, and the layer of an error', () => {
    const members = three({ c: { state: 'unreachable', failure: probeError('PORT_FORWARD_FAILED', 'error dialing backend') } });
    const facts = kubeFacts(members, { nodes: [node('m-a'), node('m-c')], pods: [pod('m-a'), pod('m-c', false)] });
    const all = cards(members, { kube: facts });
    expect(card(all, 'a').markup).toContain('<dt>Node</dt><dd>m-a · Ready · 10.0.0.1</dd><dt>Pod</dt><dd>etcd-m-a · Ready</dd>');
    expect(card(all, 'b').markup).toContain('<dd>no node of its name</dd>');
    expect(card(all, 'b').markup).toContain('<dd>no etcd pod</dd>');
    expect(card(all, 'c').markup).toContain('<dd>etcd-m-c · not Ready</dd>');
    expect(card(all, 'c').markup).toContain('<code>PORT_FORWARD_FAILED</code> error dialing backend <span class="layer">(layer port-forward)</span>');
    // Static mode has no nodes to speak of.
    expect(card(cards(three()), 'a').markup).not.toContain('<dt>Node</dt>');
  });
});

describe('memberCard: the last data comparison', () => {
  function withData(hashes: readonly (string | null)[]) {
    const comparison = compareHashes(
      '100',
      hashes.map((hash, i) => ({
        memberId: 'abc'[i] as string,
        outcome: hash === null ? { ok: false as const, error: probeError('TIMEOUT', 'deadline exceeded'), ms: 1 } : { ok: true as const, value: { revision: '100', compactRevision: '50', hash, currentRevision: '101' }, ms: 1 },
      })),
      Date.UTC(2026, 11, 5, 14, 0),
    );
    const snapshot = { ...snapshotOf(three()), data: nextFindings(nextFindings(null, comparison), comparison) };
    const model = modelOf(snapshot);
    return new Map(model.members.members.map((m) => [m.id, memberCard(m, QUOTA).markup]));
  }

  it('badges the member confirmed diverged and says how each member compared', () => {
    const all = withData(['7', '8', '7']);
    expect(all.get('b')).toContain('data diverged');
    expect(all.get('b')).toContain('differs from the majority at revision 100 · hash 8 · compacted at 50');
    expect(all.get('a')).not.toContain('data diverged');
    expect(all.get('a')).toContain('same as the majority at revision 100 · hash 7');
    const partial = withData(['7', '7', null]);
    expect(partial.get('c')).toContain('not compared at revision 100');
    expect(partial.get('c')).not.toContain('data diverged');
  });

  it('says nothing of data when the check has not compared', () => {
    for (const markup of cards(three()).values()) expect(markup.markup).not.toContain('<dt>Data</dt>');
  });
});
