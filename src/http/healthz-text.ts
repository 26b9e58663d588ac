import type { Policy } from '../config/config.ts';
import type { Snapshot } from '../probe/snapshot.ts';

function check(ok: boolean, name: string, detail: string): string {
  return ok ? `[+]${name} ok${detail ? ` (${detail})` : ''}` : `[-]${name} failed: ${detail}`;
}

/** Renders a verdict as Kubernetes-style healthz lines, ending in `healthz check passed` or `failed`. */
export function renderHealthzText(snapshot: Snapshot, policy: Policy, passed: boolean): string {
  const { view, verdict } = snapshot;
  const lines: string[] = [];
  for (const m of view.members) {
    const name = m.name === '' ? m.id : m.name;
    const role = [verdict.leader?.id === m.id ? 'leader' : '', m.isLearner ? 'learner' : ''].filter(Boolean).join(', ');
    const detail = m.healthy ? [role, m.latencyMs === null ? '' : `${m.latencyMs}ms`].filter(Boolean).join(', ') : (m.error?.message ?? 'not probed');
    lines.push(check(m.healthy, `member ${name}`, detail));
  }
  for (const e of view.endpoints.filter((e) => e.memberId === null && !view.members.some((m) => m.endpoint === e.endpoint))) {
    lines.push(check(false, `endpoint ${e.endpoint}`, e.error?.message ?? 'unknown member'));
  }
  const q = verdict.quorum;
  const quorumFailed = verdict.reasons.some((r) => r.code === 'QUORUM_LOST' || r.code === 'NO_MEMBER_REACHABLE');
  lines.push(check(!quorumFailed, 'quorum', `${q.healthyVoting} of ${q.voting} voting members healthy, ${q.required} required, can lose ${q.faultTolerance} more`));
  lines.push(check(verdict.leader !== null, 'leader', verdict.leader ? verdict.leader.name || verdict.leader.id : 'no leader'));
  const alarms = view.alarms.map((a) => `${a.alarm} on ${view.members.find((m) => m.id === a.memberId)?.name || a.memberId}`);
  if (view.alarmSource === null) lines.push(check(false, 'alarms', 'unknown: no member answered'));
  else lines.push(check(alarms.length === 0, 'alarms', alarms.length === 0 ? `from ${view.alarmSource}` : alarms.join(', ')));
  lines.push(`status ${verdict.status} (policy ${policy})`);
  for (const r of verdict.reasons) {
    lines.push(`reason ${r.code} (${r.severity}): ${r.message}`);
    lines.push(`  hint: ${r.hint}`);
  }
  lines.push(passed ? 'healthz check passed' : 'healthz check failed');
  return `${lines.join('\n')}\n`;
}

/** The text form of the summary a caller without the token gets: status, reason codes, pass or fail. */
export function renderHealthzSummaryText(snapshot: Snapshot, policy: Policy, passed: boolean): string {
  const lines = [`status ${snapshot.verdict.status} (policy ${policy})`];
  for (const r of snapshot.verdict.reasons) lines.push(`reason ${r.code} (${r.severity})`);
  lines.push(passed ? 'healthz check passed' : 'healthz check failed');
  return `${lines.join('\n')}\n`;
}
