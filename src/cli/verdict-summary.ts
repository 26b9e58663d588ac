import { quorumSentence } from '../probe/quorum-sentence.ts';
import { leaderSentence } from '../probe/leader-sentence.ts';
import type { Snapshot } from '../probe/snapshot.ts';

/** The verdict in words for a person at a terminal: status, quorum, leader, then each reason with its hint. */
export function renderVerdictSummary(snapshot: Snapshot): string {
  const { verdict, view } = snapshot;
  // The table names members by ID only (as etcdctl does), so the leader is given by both.
  const words = leaderSentence(verdict);
  const leader = verdict.leader ? `${words.text} (${verdict.leader.id})` : words.text;
  const lines = [
    `status: ${verdict.status}`,
    `quorum: ${quorumSentence(verdict)}`,
    `leader: ${leader}`,
  ];
  if (view.clusterId !== null) lines.push(`cluster: ${view.clusterId}`);
  lines.push(`checked: ${snapshot.checkedAtIso} in ${snapshot.durationMs} ms`);
  if (verdict.reasons.length === 0) lines.push('reasons: none');
  else lines.push('reasons:');
  for (const r of verdict.reasons) {
    lines.push(`  ${r.code} (${r.severity}): ${r.message}`);
    lines.push(`    hint: ${r.hint}`);
  }
  return `${lines.join('\n')}\n`;
}
