import type { HistoryReport } from '../probe/history/history-report.ts';
import type { Transition } from '../probe/history/transitions.ts';

function iso(at: number): string {
  return new Date(at).toISOString();
}

function transitionDocument(t: Transition) {
  switch (t.kind) {
    case 'verdict':
      return { kind: t.kind, at: iso(t.at), from: t.from, to: t.to };
    case 'member':
      return { kind: t.kind, at: iso(t.at), member: t.member, from: t.from, to: t.to, code: t.code };
    case 'leader':
      return { kind: t.kind, at: iso(t.at), from: t.from, to: t.to, fromTerm: t.fromTerm, toTerm: t.toTerm, elections: t.elections, afterQuorumLoss: t.afterQuorumLoss };
    case 'term':
      return { kind: t.kind, at: iso(t.at), leader: t.leader, fromTerm: t.fromTerm, toTerm: t.toTerm };
    case 'alarm':
      return { kind: t.kind, at: iso(t.at), member: t.member, alarm: t.alarm, change: t.change };
  }
}

/** The `/history` document: the window, its rounds, the transitions in time order, and each member's record. */
export function historyDocument(report: HistoryReport) {
  return {
    from: iso(report.from),
    to: iso(report.to),
    windowSeconds: report.windowMs / 1000,
    rounds: report.rounds,
    elections: report.elections,
    transitions: report.transitions.map(transitionDocument),
    members: report.members.map((m) => ({
      member: m.member,
      state: m.state,
      healthyShare: m.healthyShare,
      changes: m.changes,
      lastFailure: m.lastFailure ? { at: iso(m.lastFailure.at), code: m.lastFailure.code, message: m.lastFailure.message } : null,
    })),
  };
}
