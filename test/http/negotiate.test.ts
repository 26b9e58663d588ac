import { describe, expect, it } from 'vitest';
import { prefersText } from '../../src/http/negotiate.ts';

describe('prefersText', () => {
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['text/plain', true],
    ['application/json', false],
    ['text/plain, application/json', false],
    ['application/json, text/plain', false],
    ['application/json;q=0.5, text/plain', true],
    ['text/plain;q=0.5, application/json', false],
    ['text/plain;q=0.9, application/json;q=0.8', true],
    ['text/*', true],
    ['text/*, application/json', false],
    ['text/html', false],
    ['text/plain;q=0', false],
    ['text/plain;q=0, */*', false],
    ['application/json;q=0, text/plain;q=0.1', true],
    ['application/json;q=0, */*', true],
    ['text/*;q=0.2, text/plain;q=0.8, application/json;q=0.5', true],
    ['text/plain;q=0.8, text/*;q=0.2, application/json;q=0.5', true],
    ['text/*;q=0.9, text/plain;q=0.1, application/json;q=0.5', false],
    ['TEXT/PLAIN', true],
    ['text/plain; charset=utf-8', true],
    ['text/plain; charset=utf-8; q=0.3, application/json; q=0.2', true],
    ['curl/*', false],
  ])('answers %j with %s', (accept, text) => {
    expect(prefersText(accept)).toBe(text);
  });
});
