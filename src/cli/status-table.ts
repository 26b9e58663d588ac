import { formatBytes } from '../probe/format-bytes.ts';
import type { Snapshot } from '../probe/snapshot.ts';
import { isAnsweringLeader } from '../probe/verdict.ts';

/** The columns, as `etcdctl endpoint status -w table` names them (plus IN USE, from etcd 3.4's Status). */
export const STATUS_COLUMNS = [
  'ENDPOINT',
  'ID',
  'VERSION',
  'DB SIZE',
  'IN USE',
  'IS LEADER',
  'IS LEARNER',
  'RAFT TERM',
  'RAFT INDEX',
  'RAFT APPLIED INDEX',
  'ERRORS',
] as const;

/** One row per member of the round, then one per endpoint that answered as no member; cells as text. */
export function statusRows(snapshot: Snapshot): string[][] {
  const { view, verdict } = snapshot;
  const rows = view.members.map((m) => {
    const s = m.status;
    const errors = s ? [...s.errors] : [];
    if (m.error) errors.push(`${m.error.code}: ${m.error.message}`);
    return [
      m.endpoint ?? '',
      m.id,
      s?.version ?? '',
      s ? formatBytes(s.dbSizeBytes) : '',
      s ? formatBytes(s.dbSizeInUseBytes) : '',
      s ? String(isAnsweringLeader(verdict, m.id)) : '',
      String(m.isLearner),
      s ? String(s.raftTerm) : '',
      s ? String(s.raftIndex) : '',
      s ? String(s.raftAppliedIndex) : '',
      errors.join(', '),
    ];
  });
  // An endpoint nobody answered for (a bad URL, DNS) still gets a row: it is why a member may be missing.
  for (const e of view.endpoints) {
    if (e.memberId !== null || view.members.some((m) => m.endpoint === e.endpoint)) continue;
    const empty = Array.from({ length: STATUS_COLUMNS.length - 2 }, () => '');
    rows.push([e.endpoint, ...empty, e.error ? `${e.error.code}: ${e.error.message}` : 'no member answered']);
  }
  return rows;
}

function border(widths: readonly number[]): string {
  return `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
}

function center(text: string, width: number): string {
  const left = Math.floor((width - text.length) / 2);
  return `${' '.repeat(left)}${text}`.padEnd(width);
}

/**
 * Renders rows under headers as etcdctl's table writer does: boxed, headers centred, cells right-aligned,
 * except the last column, left-aligned because it holds sentences (errors) rather than values.
 */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const last = headers.length - 1;
  const cell = (text: string, i: number) => (i === last ? text.padEnd(widths[i] as number) : text.padStart(widths[i] as number));
  return [
    border(widths),
    line(headers.map((h, i) => center(h, widths[i] as number))),
    border(widths),
    ...rows.map((r) => line(headers.map((_, i) => cell(r[i] ?? '', i)))),
    border(widths),
    '',
  ].join('\n');
}

/** The round's members as an `etcdctl endpoint status`-style table. */
export function renderStatusTable(snapshot: Snapshot): string {
  return renderTable(STATUS_COLUMNS, statusRows(snapshot));
}
