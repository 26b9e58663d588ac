import type { Policy } from '../config/config.ts';
import { quorumSentence } from '../probe/quorum-sentence.ts';
import { leaderSentence } from '../probe/leader-sentence.ts';
import { shortName, shortNameOf } from '../probe/reason.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import { isAnsweringLeader } from '../probe/verdict.ts';

function check(ok: boolean, name: string, detail: string): string {
  return ok ? `[+]${name} ok${detail ? ` (${detail})` : ''}` : `[-]${name} failed: ${detail}`;
}

/** Renders a verdict as Kubernetes-style healthz lines, ending in `healthz check passed` or `failed`. */
export function renderHealthzText(snapshot: Snapshot, policy: Policy, passed: boolean): string {
  const { view, verdict } = snapshot;
  const lines: string[] = [];
  for (const m of view.members) {
    const role = [isAnsweringLeader(verdict, m.id) ? 'leader' : '', m.isLearner ? 'learner' : ''].filter(Boolean).join(', ');
    const detail = m.healthy ? [role, m.latencyMs === null ? '' : `${m.latencyMs}ms`].filter(Boolean).join(', ') : (m.error?.message ?? 'not probed');
    lines.push(check(m.healthy, `member ${shortName(m)}`, detail));
  }
  for (const e of view.endpoints.filter((e) => e.memberId === null && !view.members.some((m) => m.endpoint === e.endpoint))) {
    lines.push(check(false, `endpoint ${e.endpoint}`, e.error?.message ?? 'unknown member'));
  }
  lines.push(check(verdict.quorum.confirmed, 'quorum', quorumSentence(verdict)));
  const leader = leaderSentence(verdict);
  lines.push(check(leader.ok, 'leader', leader.text));
  const alarms = view.alarms.map((a) => `${a.alarm} on ${shortNameOf(a.memberId, view.members)}`);
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
