import { describe, expect, it } from 'vitest';
import { NO_ID, hexId, isHexId } from '../../src/probe/member-id.ts';

describe('hexId', () => {
  it('renders a member ID as etcdctl does, without zero padding', () => {
    expect(hexId('443629905751424238')).toBe('628170c800dbcee');
  });

  it('renders the largest uint64', () => {
    expect(hexId('18446744073709551615')).toBe('ffffffffffffffff');
  });

  it('renders 0 as NO_ID', () => {
    expect(hexId('0')).toBe(NO_ID);
    expect(NO_ID).toBe('0');
  });

  it('keeps every digit above 2^53, where a Number would round', () => {
    const decimal = '13455796455940752355';
    expect(Number(decimal).toString(16)).not.toBe(BigInt(decimal).toString(16));
    expect(hexId(decimal)).toBe('babc9795b64f03e3');
    expect(BigInt(`0x${hexId(decimal)}`)).toBe(BigInt(decimal));
    expect(hexId('9007199254740993')).toBe('20000000000001');
  });

  it('ignores leading zeros', () => {
    expect(hexId('00255')).toBe('ff');
  });

  it.each(['', 'abc', '-1', '1.5', ' 1', '1 ', '0x10', '1e3'])('rejects %j', (text) => {
    expect(() => hexId(text)).toThrow(new TypeError(`not a uint64: ${JSON.stringify(text)}`));
  });

  it('rejects a number above uint64', () => {
    expect(() => hexId('18446744073709551616')).toThrow(new TypeError('out of uint64 range: 18446744073709551616'));
  });
});

describe('isHexId', () => {
  it.each(['0', '628170c800dbcee', 'ffffffffffffffff', 'a'])('accepts %j', (text) => {
    expect(isHexId(text)).toBe(true);
  });

  it.each(['', '1ffffffffffffffff', '628170C800DBCEE', '0x10', 'g', ' 1', 'ab-cd'])('rejects %j', (text) => {
    expect(isHexId(text)).toBe(false);
  });

  it('accepts what hexId renders', () => {
    for (const decimal of ['1', '443629905751424238', '18446744073709551615']) expect(isHexId(hexId(decimal))).toBe(true);
  });
});
