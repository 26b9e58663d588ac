import { historyDocument } from '../../src/http/history-document.ts';
import { historyReport } from '../../src/probe/history/history-report.ts';
import { RoundHistory } from '../../src/probe/history/round-history.ts';
import type { MemberRecord, MemberState, RoundRecord } from '../../src/probe/history/round-record.ts';

// Measures the round history: its heap against its cap over many rounds, and how long a full window takes
// to answer as /history (report + JSON). Run with --expose-gc:
//   node --expose-gc --experimental-strip-types scripts/bench/history-memory.ts [rounds] [capMiB] [members]
// Prints a table and, last, one JSON line (test/probe/history/round-history-memory.test.ts reads it).

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const rounds = Number(process.argv[2] ?? 200_000);
const capMiB = Number(process.argv[3] ?? 16);
const memberCount = Number(process.argv[4] ?? 3);
const MIB = 2 ** 20;
const STEP_MS = 5000;

// Names and IDs are shared strings, as the prober's records share them with the round's view.
const members = Array.from({ length: memberCount }, (_, i) => ({ id: (0x8e9e05c52164694dn + BigInt(i)).toString(16), name: `control-plane-${i}` }));
const STATES: readonly MemberState[] = ['healthy', 'healthy', 'healthy', 'unhealthy', 'unreachable'];

/** A realistic round: mostly healthy, some members failing, a leader change now and then, an alarm sometimes. */
function record(i: number): RoundRecord {
  const at = i * STEP_MS;
  const leader = members[Math.floor(i / 97) % memberCount] as { id: string; name: string };
  return {
    at,
    status: i % 13 === 0 ? 'degraded' : 'healthy',
    confirmed: true,
    leader,
    term: 2 + Math.floor(i / 97),
    members: members.map((m, j): MemberRecord => {
      const state = (i + j) % 11 === 0 ? (STATES[(i + j) % STATES.length] as MemberState) : 'healthy';
      return { id: m.id, name: m.name, state, applied: 1000 + i * 3 + j, failure: state === 'healthy' ? null : 'CONNECTION_REFUSED', inUseKiB: 3_000_000 + i, allocatedKiB: 4_000_000 + i };
    }),
    alarms: i % 501 === 0 ? [`${members[0]?.id}:NOSPACE`] : [],
  };
}

function heapMiB(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / MIB;
}

const before = heapMiB();
const history = new RoundHistory({ windowMs: 3_600_000_000, maxBytes: capMiB * MIB, checksMs: 0 });
let peak = 0;
const samples: string[] = [];
for (let i = 0; i < rounds; i++) {
  history.add(record(i), new Map([[members[1]?.id as string, `connection refused by https://10.0.0.2:2379 in round ${i % 7}`]]));
  if ((i + 1) % Math.max(1, Math.floor(rounds / 5)) === 0) {
    const grown = heapMiB() - before;
    peak = Math.max(peak, grown);
    samples.push(`| ${i + 1} | ${history.size.records} | ${(history.size.bytes / MIB).toFixed(2)} | ${grown.toFixed(2)} |`);
  }
}

// A full hour at the default 5 s TTL: 720 rounds; timed as /history builds and serialises it.
const hour = new RoundHistory({ windowMs: 3_600_000, maxBytes: 16 * MIB, checksMs: 0 });
for (let i = 0; i < 720; i++) hour.add(record(i));
const now = 720 * STEP_MS;
const timings: number[] = [];
for (let k = 0; k < 50; k++) {
  const started = performance.now();
  JSON.stringify(historyDocument(historyReport(hour, { since: null, memberId: null }, now)));
  timings.push(performance.now() - started);
}
timings.sort((a, b) => a - b);
// The worst case the cap allows: every record the cap holds, in one window.
const full = performance.now();
JSON.stringify(historyDocument(historyReport(history, { since: null, memberId: null }, rounds * STEP_MS)));
const fullMs = performance.now() - full;

console.log(`rounds added: ${rounds}, cap ${capMiB} MiB, ${memberCount} members`);
console.log('| rounds added | records kept | estimated MiB | heap growth MiB (after GC) |');
console.log('|---|---|---|---|');
for (const s of samples) console.log(s);
console.log(`/history of a full hour (720 rounds): median ${timings[25]?.toFixed(2)} ms, max ${timings.at(-1)?.toFixed(2)} ms`);
console.log(`/history of everything the cap holds (${history.size.records} rounds): ${fullMs.toFixed(1)} ms`);
console.log(JSON.stringify({ capBytes: capMiB * MIB, peakHeapGrowthBytes: Math.round(peak * MIB), kept: history.size.records, hourMedianMs: timings[25], hourMaxMs: timings.at(-1), capWindowMs: fullMs }));
