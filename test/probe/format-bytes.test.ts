import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/probe/format-bytes.ts';

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;
const TIB = 1024 * GIB;

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1, '1 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [40 * KIB, '40 KiB'],
    [99.94 * KIB, '99.9 KiB'],
    [150 * KIB, '150 KiB'],
    [812 * MIB, '812 MiB'],
    [20_480, '20 KiB'],
    [1.5 * GIB, '1.5 GiB'],
    [2 * GIB, '2 GiB'],
    [2.25 * GIB, '2.3 GiB'],
    [TIB, '1 TiB'],
    [2048 * TIB, '2048 TiB'],
  ])('renders %d bytes as %j', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
