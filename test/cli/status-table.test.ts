import { describe, expect, it } from 'vitest';
import { STATUS_COLUMNS, renderStatusTable, renderTable, statusRows } from '../../src/cli/status-table.ts';
import { round, three } from '../probe/observation-builders.ts';
import { snapshotOf } from '../probe/snapshot-builder.ts';

describe('renderTable', () => {
  it('boxes the rows as etcdctl does: headers centred, values right-aligned, the last column left-aligned', () => {
    expect(renderTable(['A', 'LONGER', 'ERRORS'], [['1', '22', 'x'], ['333', '4', '']])).toBe(
      [
        '+-----+--------+--------+',
        '|  A  | LONGER | ERRORS |',
        '+-----+--------+--------+',
        '|   1 |     22 | x      |',
        '| 333 |      4 |        |',
        '+-----+--------+--------+',
        '',
      ].join('\n'),
    );
  });

  it('widens a column to its longest cell', () => {
    const lines = renderTable(['ID'], [['8e9e05c52164694d']]).split('\n');
    expect(lines[0]).toBe(`+${'-'.repeat(18)}+`);
    expect(lines[1]).toBe(`|${' '.repeat(8)}ID${' '.repeat(8)}|`);
  });
});

describe('statusRows', () => {
  it("has etcdctl endpoint status's columns, with IN USE beside DB SIZE", () => {
    expect(STATUS_COLUMNS).toEqual(['ENDPOINT', 'ID', 'VERSION', 'DB SIZE', 'IN USE', 'IS LEADER', 'IS LEARNER', 'RAFT TERM', 'RAFT INDEX', 'RAFT APPLIED INDEX', 'ERRORS']);
  });

  it('renders one row per member: sizes for people, the leader marked, raft numbers as reported', () => {
    const members = three({ a: { dbSizeBytes: 3 * 2 ** 20, dbSizeInUseBytes: 1.5 * 2 ** 20, raftIndex: 812, raftAppliedIndex: 810, raftTerm: 4 } });
    const rows = statusRows(snapshotOf(round(members)));
    expect(rows).toEqual([
      ['https://m-a:2379', 'a', '3.5.17', '3 MiB', '1.5 MiB', 'true', 'false', '4', '812', '810', ''],
      ['https://m-b:2379', 'b', '3.5.17', '20 KiB', '16 KiB', 'false', 'false', '2', '1000', '1000', ''],
      ['https://m-c:2379', 'c', '3.5.17', '20 KiB', '16 KiB', 'false', 'false', '2', '1000', '1000', ''],
    ]);
  });

  it('leaves the status cells of an unreachable member empty and says why under ERRORS', () => {
    const rows = statusRows(snapshotOf(round(three({ c: { state: 'unreachable' } }))));
    expect(rows[2]).toEqual(['https://m-c:2379', 'c', '', '', '', '', 'false', '', '', '', 'CONNECTION_REFUSED: connection refused']);
  });

  it('marks a learner and names the error of a member whose read fails', () => {
    const rows = statusRows(snapshotOf(round([...three({ b: { state: 'unhealthy' } }), { id: 'd', name: 'm-d', learner: true }])));
    expect(rows[1]?.[10]).toBe('TIMEOUT: no answer within 2000ms');
    expect(rows[3]?.[6]).toBe('true');
  });

  it('adds a row for an endpoint that answered as no member', () => {
    const rows = statusRows(snapshotOf(round(three(), { deadEndpoints: ['https://typo:2379'] })));
    expect(rows).toHaveLength(4);
    expect(rows[3]?.[0]).toBe('https://typo:2379');
    expect(rows[3]?.[10]).toBe('DNS_FAILURE: dns_failure');
  });

  it('renders the whole table with a header and one line per row', () => {
    const lines = renderStatusTable(snapshotOf(round(three()))).trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toMatch(/^\| +ENDPOINT +\| +ID +\| VERSION \| DB SIZE \| IN USE \| IS LEADER \| IS LEARNER \| RAFT TERM \| RAFT INDEX \| RAFT APPLIED INDEX \| ERRORS \|$/);
    expect(lines[3]).toMatch(/^\| https:\/\/m-a:2379 \| +a \| +3\.5\.17 \| +20 KiB \| +16 KiB \| +true \| +false \| +2 \| +1000 \| +1000 \| +\|$/);
  });
});
