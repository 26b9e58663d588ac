import type { ClientOptions } from '@grpc/grpc-js';

/** StatusResponse's field number of `dbSizeQuota` (etcd 3.6, api/etcdserverpb/rpc.proto). */
export const DB_SIZE_QUOTA_FIELD = 12;
const STATUS_PATH = '/etcdserverpb.Maintenance/Status';

/** A varint at `offset`: its value (exact up to 2^53) and the offset after it, or null when malformed. */
function varint(buf: Uint8Array, offset: number): { value: number; next: number } | null {
  let value = 0;
  let scale = 1;
  for (let i = offset; i < buf.length && i < offset + 10; i++) {
    const byte = buf[i] as number;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
  }
  return null;
}

/**
 * The quota a StatusResponse reports (`dbSizeQuota`, etcd 3.6 and later), read from its encoded bytes:
 * etcd3's protocol definitions predate the field, so its decoder drops it. Null when absent (etcd before
 * 3.6), zero, or when the bytes do not parse (they come from the peer: never trusted, never echoed).
 */
export function readDbSizeQuota(buf: Uint8Array): number | null {
  let offset = 0;
  let quota: number | null = null;
  while (offset < buf.length) {
    const tag = varint(buf, offset);
    if (!tag) return null;
    const field = Math.floor(tag.value / 8);
    const wire = tag.value % 8;
    offset = tag.next;
    if (wire === 0) {
      const v = varint(buf, offset);
      if (!v) return null;
      if (field === DB_SIZE_QUOTA_FIELD) quota = v.value > 0 ? v.value : null;
      offset = v.next;
    } else if (wire === 2) {
      const length = varint(buf, offset);
      if (!length) return null;
      offset = length.next + length.value;
    } else if (wire === 1) offset += 8;
    else if (wire === 5) offset += 4;
    else return null;
  }
  return offset === buf.length ? quota : null;
}

/**
 * A gRPC client option that keeps Status's raw bytes long enough to read `dbSizeQuota` from them: the
 * decoded response gets a `dbSizeQuota` property (a number, or null). Every other call is left alone.
 */
export const statusQuotaTransformer: NonNullable<ClientOptions['callInvocationTransformer']> = (props) => {
  if (props.methodDefinition.path !== STATUS_PATH) return props;
  const decode = props.methodDefinition.responseDeserialize;
  return {
    ...props,
    methodDefinition: {
      ...props.methodDefinition,
      responseDeserialize: (bytes: Buffer) => Object.assign(decode(bytes) as object, { dbSizeQuota: readDbSizeQuota(bytes) }),
    },
  };
};
