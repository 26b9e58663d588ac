import { constants, deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { adler32, dataFrames, FrameReader, HeaderDeflater, headerBlock, HeaderInflater, parseHeaderBlock, SPDY_DICTIONARY } from '#lab/kube-apiserver/spdy-frames.ts';
import { humanDuration, wantsTable } from '#lab/kube-apiserver/tables.ts';

// The stand-in's SPDY framing and printing helpers, on their own; kubectl drives them end to end in
// test/integration/fake-kube-kubectl.test.ts.

describe('SPDY/3 framing', () => {
  it("has SPDY/3's header dictionary (1423 bytes, the Adler-32 that spdystream's zlib header carries)", () => {
    expect(SPDY_DICTIONARY.length).toBe(1423);
    expect(adler32(SPDY_DICTIONARY).toString(16)).toBe('e3c6a7c2');
    expect(adler32(Buffer.from('Wikipedia'))).toBe(0x11e60398);
  });

  it('writes header blocks that zlib inflates with the dictionary, block after block, each ending in a sync flush', () => {
    const deflater = new HeaderDeflater();
    const first = deflater.deflate(headerBlock({ streamtype: 'error', port: '2379' }));
    const second = deflater.deflate(headerBlock({}));
    expect(first.subarray(-5)).toEqual(Buffer.from([0, 0, 0, 0xff, 0xff]));
    const both = inflateSync(Buffer.concat([first, second]), { dictionary: SPDY_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    expect(parseHeaderBlock(both.subarray(0, both.length - 4))).toEqual(new Map([['streamtype', ['error']], ['port', ['2379']]]));
    expect(both.subarray(-4)).toEqual(Buffer.alloc(4));
  });

  it('inflates the peer header blocks in order from one zlib stream, and splits multi-valued headers at NUL', async () => {
    const raw = [headerBlock({ streamtype: 'data', requestid: '0' }), headerBlock({ accept: 'a\0b' })];
    const stream = deflateSync(Buffer.concat(raw), { dictionary: SPDY_DICTIONARY });
    const inflater = new HeaderInflater();
    try {
      const out = await inflater.inflate(stream);
      expect(parseHeaderBlock(out.subarray(0, raw[0]?.length))).toEqual(new Map([['streamtype', ['data']], ['requestid', ['0']]]));
      expect(parseHeaderBlock(out.subarray(raw[0]?.length)).get('accept')).toEqual(['a', 'b']);
    } finally {
      inflater.close();
    }
  });

  it('reads frames split anywhere across chunks, and refuses a header block cut short', () => {
    const bytes = Buffer.concat([...dataFrames(3, Buffer.from('hello'), false), ...dataFrames(3, Buffer.alloc(0), true)]);
    const reader = new FrameReader();
    const frames = [...reader.push(bytes.subarray(0, 3)), ...reader.push(bytes.subarray(3, 14)), ...reader.push(bytes.subarray(14))];
    expect(frames).toEqual([
      { kind: 'data', streamId: 3, flags: 0, payload: Buffer.from('hello') },
      { kind: 'data', streamId: 3, flags: 1, payload: Buffer.alloc(0) },
    ]);
    expect(() => parseHeaderBlock(Buffer.from([0, 0, 0, 1, 0, 0, 0, 9, 0x61]))).toThrow('header block ends inside a name or value');
  });
});

describe('server-side printing', () => {
  it.each([
    [-5_000, '<invalid>'],
    [59_000, '59s'],
    [119_000, '119s'],
    [150_000, '2m30s'],
    [600_000, '10m'],
    [3 * 3600_000 + 60_000, '3h1m'],
    [10 * 3600_000, '10h'],
    [2 * 86_400_000, '2d'],
    [3 * 86_400_000 + 5 * 3600_000, '3d5h'],
    [30 * 86_400_000, '30d'],
    [800 * 86_400_000, '2y70d'],
  ])("ages %i ms as kubectl's HumanDuration does: %s", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it("answers a Table only to kubectl get's Accept header", () => {
    expect(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json')).toBe(true);
    expect(wantsTable('application/json')).toBe(false);
    expect(wantsTable('application/vnd.kubernetes.protobuf,application/json')).toBe(false);
  });
});
