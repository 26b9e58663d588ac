import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REASONS, type ReasonEntry } from '../../src/probe/reason-catalogue.ts';

// Generates docs/reasons.md from the reason catalogue (src/probe/reason-catalogue.ts), so that the
// reference cannot drift from the code: test/docs/reason-reference.test.ts fails when it does.
// Run: node --experimental-strip-types scripts/docs/reason-reference.ts (npm run docs:reasons).

const PREFACE = `# Reason reference

Generated from \`src/probe/reason-catalogue.ts\` by \`npm run docs:reasons\`; a test fails when the two
differ. Every reason carries \`code\`, \`severity\`, \`member\` (\`{id, name}\` or null), \`endpoint\`, a
\`message\` with the numbers it saw, and the \`hint\` below. The status is the worst severity among the
reasons: \`unhealthy\` and \`degraded\` set it, \`info\` never changes it.

The JSON, \`?verbose\`, the status page and the CLI list the reasons in one order, for people on call
who read the first one: by severity; within a severity, what is wrong now before what recent rounds saw
(the reasons marked *from history* below: a member down now comes before the leader changes and the
flapping of the last minutes); then in this reference's order; then by member.

## How quorum is judged

One round asks every member for Status (answered locally) and a linearizable read (it goes through
ReadIndex, so it passes only when a leader confirms it with a majority). What one round sees, and what
recent rounds saw, decide:

| the round sees | verdict |
|---|---|
| a linearizable read passed on any voting member | quorum is **confirmed**: never \`QUORUM_LOST\`; members etcd-probe cannot reach make the margin unknown (\`QUORUM_MARGIN_UNKNOWN\`, degraded) |
| no read passed, a majority of voting members answers Status, a leader was confirmed less than \`ETCD_PROBE_ELECTION_GRACE\` (10 s) ago | an election: \`NO_LEADER\`, degraded |
| no read passed, a majority answers, no leader confirmed for longer than the grace | \`QUORUM_LOST\`, unhealthy (the members cannot elect a leader: a partition) |
| no read passed, fewer than a majority answers Status | \`QUORUM_LOST\`, unhealthy, at once |
| nothing answered | \`NO_MEMBER_REACHABLE\`, unhealthy |

The leader is named only when a read confirmed one, and shown as a working leader only when it answered
etcd-probe itself (\`leader.reachable\`); a leader that only its followers vouch for is named as such.
The grace defaults to 10 s: etcd's election timeout is 1 s by default and an election normally ends
within 2 × that; 10 s leaves room for clusters tuned to a longer \`--election-timeout\` (raise the grace
to about 5 × theirs). A full partition therefore ends in \`QUORUM_LOST\` within the grace plus one round.

## Reasons
`;

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function section(code: string, entry: ReasonEntry): string {
  const lines = [`### \`${code}\` — ${entry.severity}${entry.fromHistory ? ', from history' : ''}`, '', `**When:** ${cell(entry.when)}`, ''];
  if (entry.why) lines.push(`**Why ${entry.severity}:** ${cell(entry.why)}`, '');
  lines.push(`**Hint:** ${cell(entry.hint)}`, '');
  return lines.join('\n');
}

/** The whole of docs/reasons.md, from the catalogue. */
export function renderReasonReference(): string {
  const entries = Object.entries(REASONS) as [string, ReasonEntry][];
  const table = ['| code | severity | when |', '|---|---|---|', ...entries.map(([code, e]) => `| \`${code}\` | ${e.severity} | ${cell(e.when)} |`)];
  return `${PREFACE}\n${table.join('\n')}\n\n${entries.map(([code, e]) => section(code, e)).join('\n')}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = new URL('../../docs/reasons.md', import.meta.url);
  writeFileSync(target, renderReasonReference());
  console.log(`wrote ${fileURLToPath(target)}`);
}
