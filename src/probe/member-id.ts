const UINT64_MAX = (1n << 64n) - 1n;

/** Renders a uint64 given as a decimal string (as the gRPC layer delivers it) as lowercase hex, like etcdctl. */
export function hexId(decimal: string): string {
  if (!/^\d+$/.test(decimal)) throw new TypeError(`not a uint64: ${JSON.stringify(decimal)}`);
  const value = BigInt(decimal);
  if (value > UINT64_MAX) throw new TypeError(`out of uint64 range: ${decimal}`);
  return value.toString(16);
}

/** The hex ID etcd uses for "none" (a member that knows no leader reports leader 0). */
export const NO_ID = '0';

/** Whether text is a member ID as rendered by hexId (1 to 16 lowercase hex digits). */
export function isHexId(text: string): boolean {
  return /^[0-9a-f]{1,16}$/.test(text);
}
