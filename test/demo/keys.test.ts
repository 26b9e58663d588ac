import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CTRL_C, readKeys } from '../../scripts/demo/keys.ts';

describe("the demo's keys", () => {
  it('delivers every character of a pipe as a key, skipping whitespace, until stopped', async () => {
    const input = new PassThrough();
    const keys: string[] = [];
    const stop = readKeys(input, (k) => keys.push(k));
    input.write('3s\n c\r\n');
    input.write(CTRL_C);
    await new Promise((resolve) => setImmediate(resolve));
    expect(keys).toEqual(['3', 's', 'c', CTRL_C]);
    stop();
    input.write('k');
    await new Promise((resolve) => setImmediate(resolve));
    expect(keys).toHaveLength(4);
    stop();
  });

  it('puts a terminal into raw mode (keys without Enter) and back when stopped', () => {
    const modes: boolean[] = [];
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: (on: boolean) => modes.push(on) });
    const stop = readKeys(input, () => {});
    expect(modes).toEqual([true]);
    stop();
    stop();
    expect(modes).toEqual([true, false]);
  });
});
