import { describe, expect, it } from 'vitest';
import { leaderlessSince, NO_MEMORY, remember, type LeaderMemory } from '../../src/probe/leader-memory.ts';

const A = { id: 'a', name: 'm-a' };
const B = { id: 'b', name: 'm-b' };

/** Feeds rounds (start, confirmed, leader) through remember(), as the prober does. */
function replay(rounds: readonly [number, boolean, typeof A | null][]): LeaderMemory[] {
  const seen: LeaderMemory[] = [];
  let memory = NO_MEMORY;
  for (const [startedAt, confirmed, leader] of rounds) {
    memory = remember(memory, { startedAt, confirmed, leader });
    seen.push(memory);
  }
  return seen;
}

describe('leader memory: what recent rounds proved', () => {
  it('keeps the last confirmation through a leaderless stretch, and the first leaderless round', () => {
    expect(
      replay([
        [1000, true, A],
        [2000, true, A],
        [3000, false, null],
        [4000, false, null],
        [5000, true, B],
      ]),
    ).toEqual([
      { confirmedAt: 1000, unconfirmedSince: null, lastLeader: A },
      { confirmedAt: 2000, unconfirmedSince: null, lastLeader: A },
      { confirmedAt: 2000, unconfirmedSince: 3000, lastLeader: A },
      { confirmedAt: 2000, unconfirmedSince: 3000, lastLeader: A },
      { confirmedAt: 5000, unconfirmedSince: null, lastLeader: B },
    ]);
  });

  it('starts a stretch at the first round when no leader was ever confirmed', () => {
    expect(replay([[700, false, null], [1700, false, null]]).at(-1)).toEqual({ confirmedAt: null, unconfirmedSince: 700, lastLeader: null });
  });

  it('measures leaderlessness from the last confirmation, else from the first leaderless round, else from now', () => {
    expect(leaderlessSince({ confirmedAt: 2000, unconfirmedSince: 3000, lastLeader: A }, 9000)).toBe(2000);
    expect(leaderlessSince({ confirmedAt: null, unconfirmedSince: 3000, lastLeader: null }, 9000)).toBe(3000);
    expect(leaderlessSince(NO_MEMORY, 9000)).toBe(9000);
  });
});
