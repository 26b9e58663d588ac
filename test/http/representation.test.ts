import { describe, expect, it } from 'vitest';
import { perRound, represent, JSON_TYPE, TEXT_TYPE } from '../../src/http/representation.ts';

describe('represent', () => {
  it('tags exactly the bytes: a different body, type or status is a different tag, the same is the same', () => {
    const a = represent(200, JSON_TYPE, '{"status":"healthy"}');
    expect(a.body.toString('utf8')).toBe('{"status":"healthy"}');
    expect(a.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(represent(200, JSON_TYPE, '{"status":"healthy"}').etag).toBe(a.etag);
    expect(represent(200, JSON_TYPE, '{"status":"degraded"}').etag).not.toBe(a.etag);
    expect(represent(200, TEXT_TYPE, '{"status":"healthy"}').etag).not.toBe(a.etag);
    expect(represent(503, JSON_TYPE, '{"status":"healthy"}').etag).not.toBe(a.etag);
  });
});

describe('perRound', () => {
  it('renders each key once per round, and again for a new round', () => {
    const roundA = {};
    const roundB = {};
    let renders = 0;
    const render = (text: string) => () => {
      renders += 1;
      return represent(200, JSON_TYPE, text);
    };
    const first = perRound(roundA, 'k', render('a'));
    expect(perRound(roundA, 'k', render('x'))).toBe(first);
    expect(renders).toBe(1);
    const other = perRound(roundA, 'other', render('b'));
    expect(other.body.toString()).toBe('b');
    expect(perRound(roundB, 'k', render('c')).body.toString()).toBe('c');
    // Going back to an earlier round still finds what it rendered (a slow request may hold an old round).
    expect(perRound(roundA, 'k', render('y'))).toBe(first);
    expect(renders).toBe(3);
  });
});
