import { describe, expect, it } from 'vitest';
import { noneMatchHits } from '../../src/http/send-representation.ts';

describe('noneMatchHits', () => {
  const tag = '"abc"';
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['', false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc" ', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['"ABC"', false],
  ])('If-None-Match %j matches: %s', (header, hit) => {
    expect(noneMatchHits(header, tag)).toBe(hit);
  });
});
