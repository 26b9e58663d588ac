import { quotaEtas } from '../../src/probe/history/quota-eta-check.ts';
import type { RoundRecord } from '../../src/probe/history/round-record.ts';

// What the quota ETA costs a round: fitting every member's sizes over a full window of rounds.
//   node --experimental-strip-types scripts/bench/quota-eta-cost.ts [records in the window] [members]
// 4320 records is 6 h at the default 5 s TTL; 19596 is all a 16 MiB history holds of 3 members.

const records = Number(process.argv[2] ?? 4320);
const memberCount = Number(process.argv[3] ?? 3);
const ids = Array.from({ length: memberCount }, (_, i) => `m${i + 1}`);
const past: RoundRecord[] = Array.from({ length: records }, (_, i) => ({
  at: i * 1000,
  status: 'healthy',
  confirmed: true,
  leader: null,
  term: 2,
  alarms: [],
  members: ids.map((id) => ({ id, name: id, state: 'healthy', applied: i, failure: null, inUseKiB: 1_500_000 + i, allocatedKiB: 1_600_000 + i })),
}));
const current = { ...(past.pop() as RoundRecord), at: records * 1000 };
const limits = { quotaBytes: 2 * 2 ** 30, quotaEtaThresholdMs: 86_400_000, quotaEtaWindowMs: records * 1000 };
for (let i = 0; i < 20; i++) quotaEtas(past, current, limits);
const times: number[] = [];
for (let i = 0; i < 51; i++) {
  const started = performance.now();
  quotaEtas(past, current, limits);
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
console.log(`quota ETA over ${records} records, ${memberCount} members: median ${(times[25] ?? 0).toFixed(2)} ms, max ${(times[50] ?? 0).toFixed(2)} ms (51 rounds)`);
