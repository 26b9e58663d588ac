import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/config/argv.ts';

const brief = (argv: string[], valuedShorts: string[] = []) => tokenize(argv, valuedShorts).map((t) => [t.raw, t.value, t.args.length]);

describe('tokenize', () => {
  it('reads --flag=value, --flag value and a --flag without one', () => {
    expect(brief(['--timeout=2s', '--policy', 'strict', '--discover'])).toEqual([
      ['--timeout', '2s', 1],
      ['--policy', 'strict', 2],
      ['--discover', null, 1],
    ]);
  });

  it('never takes a flag for the value of the one before it', () => {
    expect(brief(['--timeout', '--policy=strict'])).toEqual([
      ['--timeout', null, 1],
      ['--policy', 'strict', 1],
    ]);
  });

  it('keeps an empty value after = (a mistake the settings report), and = inside a value', () => {
    expect(brief(['--listen=', '--endpoints=http://a:2379?x=1'])).toEqual([
      ['--listen', '', 1],
      ['--endpoints', 'http://a:2379?x=1', 1],
    ]);
  });

  it('reads a short flag that takes a value in every spelling, and any other short flag whole', () => {
    for (const argv of [['-o', 'json'], ['-ojson'], ['-o=json']]) expect(brief(argv, ['o'])).toEqual([['-o', 'json', argv.length]]);
    expect(brief(['-o', 'json'])).toEqual([['-o', null, 1], ['json', null, 1]]);
    expect(brief(['-vv', '-h'], ['o'])).toEqual([['-vv', null, 1], ['-h', null, 1]]);
  });

  it('calls a word, or a lone -, positional', () => {
    const tokens = tokenize(['check', '-', '--x']);
    expect(tokens.map((t) => t.name)).toEqual([null, null, 'x']);
  });

  it('gives back every argument exactly once, in order', () => {
    const argv = ['--a', 'b', '-o', 'c', '--d=e', 'f', '-g', '--h'];
    expect(tokenize(argv, ['o']).flatMap((t) => t.args)).toEqual(argv);
  });
});
