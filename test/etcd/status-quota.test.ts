import { describe, expect, it } from 'vitest';
import { readDbSizeQuota, statusQuotaTransformer } from '../../src/etcd/status-quota.ts';

// StatusResponse bytes written by hand, field by field as protobuf encodes them, with etcd 3.6's
// dbSizeQuota (field 12) and without it (etcd 3.4 and 3.5).

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 128) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

const tag = (field: number, wire: number) => varint(field * 8 + wire);
const bytesField = (field: number, body: number[]) => [...tag(field, 2), ...varint(body.length), ...body];
const numberField = (field: number, n: number) => [...tag(field, 0), ...varint(n)];

/** A header (field 1, a nested message holding a field 12 of its own would be no quota), version, sizes, raft facts. */
function status(extra: number[] = []): Uint8Array {
  const header = [...numberField(1, 0x1234), ...numberField(2, 0x5678), ...numberField(3, 42), ...numberField(4, 7)];
  return Uint8Array.from([
    ...bytesField(1, header),
    ...bytesField(2, [...Buffer.from('3.6.4')]),
    ...numberField(3, 25 * 2 ** 20),
    ...numberField(4, 0x1234),
    ...numberField(5, 1000),
    ...numberField(6, 3),
    ...numberField(7, 1000),
    ...bytesField(8, [...Buffer.from('memberID:1 alarm:NOSPACE ')]),
    ...numberField(9, 20 * 2 ** 20),
    ...extra,
  ]);
}

describe('readDbSizeQuota', () => {
  it('reads etcd 3.6\'s dbSizeQuota (field 12), 8 GiB', () => {
    expect(readDbSizeQuota(status(numberField(12, 8 * 2 ** 30)))).toBe(8 * 2 ** 30);
  });

  it('reads it after fields it does not know (3.6\'s storageVersion, a 64-bit and a 32-bit field)', () => {
    const more = [...bytesField(11, [...Buffer.from('3.6')]), ...tag(14, 1), 1, 2, 3, 4, 5, 6, 7, 8, ...tag(15, 5), 1, 2, 3, 4];
    expect(readDbSizeQuota(status([...more, ...numberField(12, 2 * 2 ** 30)]))).toBe(2 * 2 ** 30);
  });

  it('is null before 3.6 (no field 12), for a zero quota, and for a field 12 nested in the header', () => {
    expect(readDbSizeQuota(status())).toBeNull();
    expect(readDbSizeQuota(status(numberField(12, 0)))).toBeNull();
    expect(readDbSizeQuota(Uint8Array.from(bytesField(1, numberField(12, 999))))).toBeNull();
  });

  it('is null for bytes that do not parse: truncated, a length past the end, a bad wire type', () => {
    const good = status(numberField(12, 8 * 2 ** 30));
    expect(readDbSizeQuota(good.subarray(0, good.length - 1))).toBeNull();
    expect(readDbSizeQuota(Uint8Array.from([...tag(2, 2), 100, 1, 2]))).toBeNull();
    expect(readDbSizeQuota(Uint8Array.from([...tag(12, 3)]))).toBeNull();
    expect(readDbSizeQuota(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))).toBeNull();
  });
});

describe('statusQuotaTransformer', () => {
  const props = (path: string) =>
    ({ methodDefinition: { path, responseDeserialize: () => ({ version: '3.6.4' }) } }) as unknown as Parameters<typeof statusQuotaTransformer>[0];

  it('adds dbSizeQuota to Status responses, read from their bytes', () => {
    const out = statusQuotaTransformer(props('/etcdserverpb.Maintenance/Status'));
    expect(out.methodDefinition.responseDeserialize(Buffer.from(status(numberField(12, 4 * 2 ** 30))))).toEqual({ version: '3.6.4', dbSizeQuota: 4 * 2 ** 30 });
    expect(out.methodDefinition.responseDeserialize(Buffer.from(status()))).toEqual({ version: '3.6.4', dbSizeQuota: null });
  });

  it('leaves every other call as it is', () => {
    const p = props('/etcdserverpb.KV/Range');
    expect(statusQuotaTransformer(p)).toBe(p);
  });
});
