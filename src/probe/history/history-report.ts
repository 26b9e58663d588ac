import type { MemberRef } from '../reason.ts';
import type { LastFailure, RoundHistory } from './round-history.ts';
import type { MemberState, RoundRecord } from './round-record.ts';
import { lostQuorum, transitionsBetween, type Transition } from './transitions.ts';

/** What `/history` is asked for: from when (within the window), and optionally one member (by ID). */
export interface HistoryQuery {
  /** Epoch ms; clamped to the window. */
  readonly since: number | null;
  readonly memberId: string | null;
}

/** One member over the window. */
export interface MemberHistory {
  readonly member: MemberRef;
  /** Its state in the latest round. */
  readonly state: MemberState;
  /** Share of the window's rounds in which it was healthy (0 to 1), null without rounds. */
  readonly healthyShare: number | null;
  /** How many times its state changed within the window. */
  readonly changes: number;
  /** Its last failure, kept after it recovers and after its rounds age out. */
  readonly lastFailure: LastFailure | null;
}

/** The `/history` answer, before it is rendered as JSON or as the page's timeline. */
export interface HistoryReport {
  readonly from: number;
  readonly to: number;
  readonly windowMs: number;
  readonly rounds: number;
  /** Leader changes within the window, not counting those that ended a lost quorum (as FREQUENT_LEADER_CHANGES counts). */
  readonly elections: number;
  readonly transitions: readonly Transition[];
  readonly members: readonly MemberHistory[];
  /** The rounds themselves, for the timeline (not rendered in the JSON). */
  readonly records: readonly RoundRecord[];
}

function about(t: Transition, id: string): boolean {
  switch (t.kind) {
    case 'verdict':
      return true;
    case 'leader':
      return t.from.id === id || t.to.id === id;
    case 'term':
      return t.leader.id === id;
    default:
      return t.member.id === id;
  }
}

/** Builds the history of the window (or since `query.since`) from the rounds kept. Pure apart from reading `history`. */
export function historyReport(history: RoundHistory, query: HistoryQuery, now: number): HistoryReport {
  const windowStart = now - history.limits.windowMs;
  const from = Math.max(windowStart, query.since ?? windowStart);
  const records = history.records(from);
  const transitions: Transition[] = [];
  let lastLed: RoundRecord | null = null;
  let quorumLost = false;
  let elections = 0;
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as RoundRecord;
    const changes = transitionsBetween(i === 0 ? null : (records[i - 1] ?? null), record, lastLed, quorumLost);
    for (const t of changes) {
      if (t.kind === 'leader') elections += t.elections;
      if (query.memberId === null || about(t, query.memberId)) transitions.push(t);
    }
    if (record.leader) {
      lastLed = record;
      quorumLost = false;
    } else if (lostQuorum(record)) quorumLost = true;
  }
  const latest = records.at(-1);
  const failures = history.lastFailures();
  const members = (latest?.members ?? [])
    .filter((m) => query.memberId === null || m.id === query.memberId)
    .map((m): MemberHistory => {
      const states = records.flatMap((r) => r.members.find((x) => x.id === m.id)?.state ?? []);
      const healthy = states.filter((s) => s === 'healthy').length;
      return {
        member: { id: m.id, name: m.name },
        state: m.state,
        healthyShare: states.length === 0 ? null : Math.round((healthy / states.length) * 1000) / 1000,
        changes: states.filter((s, j) => j > 0 && s !== states[j - 1]).length,
        lastFailure: failures.get(m.id) ?? null,
      };
    });
  return { from, to: now, windowMs: history.limits.windowMs, rounds: records.length, elections, transitions, members, records };
}
