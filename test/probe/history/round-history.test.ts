import { describe, expect, it } from 'vitest';
import { estimateBytes, RoundHistory } from '../../../src/probe/history/round-history.ts';
import { rec } from './record-builders.ts';

const HOUR = 3_600_000;

describe('RoundHistory', () => {
  it('returns what each round changed, and the records since a time', () => {
    const history = new RoundHistory({ windowMs: HOUR, maxBytes: 2 ** 20, checksMs: 0 });
    expect(history.add(rec(0))).toEqual([]);
    expect(history.add(rec(5, { states: { c: 'unreachable' }, status: 'degraded' })).map((t) => t.kind)).toEqual(['verdict', 'member']);
    history.add(rec(10));
    expect(history.records(5000).map((r) => r.at)).toEqual([5000, 10_000]);
    expect(history.records().length).toBe(3);
    expect(history.latest()?.at).toBe(10_000);
  });

  it('keeps a member\'s last failure, with its message, after it recovers and after its rounds age out', () => {
    const history = new RoundHistory({ windowMs: 60_000, maxBytes: 2 ** 20, checksMs: 0 });
    history.add(rec(0, { states: { c: 'unreachable' } }), new Map([['c', 'connection refused by https://m-c:2379']]));
    history.add(rec(30));
    history.add(rec(200));
    expect(history.records().map((r) => r.at)).toEqual([200_000]);
    expect(history.lastFailures().get('c')).toEqual({ member: { id: 'c', name: 'm-c' }, at: 0, code: 'CONNECTION_REFUSED', message: 'connection refused by https://m-c:2379' });
  });

  it('keeps rounds for the longest check window even when the window shown is shorter', () => {
    const history = new RoundHistory({ windowMs: 60_000, maxBytes: 2 ** 20, checksMs: 900_000 });
    for (let s = 0; s <= 1000; s += 100) history.add(rec(s));
    expect(history.records()[0]?.at).toBe(100_000);
  });

  it('drops the oldest rounds past its memory cap, and stays within it', () => {
    const cap = 50 * estimateBytes(rec(0));
    const history = new RoundHistory({ windowMs: 24 * HOUR, maxBytes: cap, checksMs: 0 });
    for (let i = 0; i < 10_000; i++) history.add(rec(i));
    expect(history.size.bytes).toBeLessThanOrEqual(cap);
    expect(history.size.records).toBe(50);
    expect(history.size.added).toBe(10_000);
    expect(history.records()[0]?.at).toBe(9950_000);
  });
});
