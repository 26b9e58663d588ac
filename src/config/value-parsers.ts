import { isIP } from 'node:net';
import type { CapiTarget, KubeconfigRef, ObjectRef, ShardRef } from './config.ts';
import { ValueProblem } from './config-error.ts';
import type { ListenAddress } from './config.ts';

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go-style duration (`500ms`, `2s`, `1m30s`) into milliseconds, within [minMs, maxMs]. */
export function parseDuration(raw: string, minMs: number, maxMs: number): number {
  const text = raw.trim();
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(text); match !== null; match = part.exec(text)) {
    total += Number(match[1]) * (DURATION_UNITS_MS[match[2] as string] as number);
    consumed = part.lastIndex;
  }
  if (text === '' || consumed !== text.length) {
    throw new ValueProblem(`'${raw}' is not a duration (write it with a unit, e.g. 5s or 500ms)`);
  }
  const ms = Math.round(total);
  if (ms < minMs || ms > maxMs) {
    throw new ValueProblem(`${raw} is out of range (${formatMs(minMs)} to ${formatMs(maxMs)})`);
  }
  return ms;
}

function formatMs(ms: number): string {
  if (ms === 0) return '0s';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

const BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  ki: 2 ** 10,
  kib: 2 ** 10,
  mi: 2 ** 20,
  mib: 2 ** 20,
  gi: 2 ** 30,
  gib: 2 ** 30,
  ti: 2 ** 40,
  tib: 2 ** 40,
};

// Decimal units are refused, with or without the B: etcd's own documentation writes "8GB" for
// --quota-backend-bytes=8589934592 (8 GiB) and its default "2GB" is 2 GiB, so `8GB` read as 8e9 bytes
// would judge against a quota 7 % off, and `8G` would mean something else again (issue 26).
const DECIMAL_UNITS: Record<string, string> = { k: 'Ki', kb: 'KiB', m: 'Mi', mb: 'MiB', g: 'Gi', gb: 'GiB', t: 'Ti', tb: 'TiB' };

/** Parses a byte size: a plain integer, or with a binary unit (`2GiB`, `8Gi`, `500MiB`). */
export function parseBytes(raw: string, minBytes: number, maxBytes: number): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(raw.trim());
  const suffix = ((match?.[2] as string | undefined) ?? '').toLowerCase();
  const binary = DECIMAL_UNITS[suffix];
  if (match && binary !== undefined) {
    throw new ValueProblem(
      `'${raw}' is ambiguous: etcd writes 8GB for 8 GiB, so decimal units are not read; write ${match[1]}${binary} for ${match[1]} × 1024^n bytes, or the plain number of bytes`,
    );
  }
  const unit = match ? BYTE_UNITS[suffix] : undefined;
  if (!match || unit === undefined) {
    throw new ValueProblem(`'${raw}' is not a byte size (e.g. 2147483648, 2GiB or 8Gi)`);
  }
  const exact = Number(match[1]) * unit;
  if (!Number.isInteger(exact)) throw new ValueProblem(`'${raw}' is not a whole number of bytes`);
  const bytes = exact;
  if (bytes < minBytes || bytes > maxBytes) {
    throw new ValueProblem(`${raw} is out of range (${minBytes} to ${maxBytes} bytes)`);
  }
  return bytes;
}

/** Parses a whole number within [min, max]. */
export function parseInteger(raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim())) throw new ValueProblem(`'${raw}' is not a whole number`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ValueProblem(`${raw} is out of range (${min} to ${max})`);
  return value;
}

/** Parses true/false, 1/0, yes/no, on/off. */
export function parseBoolean(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ValueProblem(`'${raw}' is not a boolean (use true or false)`);
}

/** Parses one of a fixed set of words. */
export function parseOneOf<T extends string>(raw: string, allowed: readonly T[]): T {
  const value = raw.trim();
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ValueProblem(`'${raw}' is not one of ${allowed.join(', ')}`);
}

/** Parses `host:port`, `:port` (all interfaces) or `[ipv6]:port`. */
export function parseListen(raw: string): ListenAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d+)$/.exec(raw.trim());
  if (!match) throw new ValueProblem(`'${raw}' is not host:port (e.g. 0.0.0.0:8080 or :8080)`);
  const port = Number(match[3]);
  if (port > 65535) throw new ValueProblem(`port ${port} is out of range (0 to 65535)`);
  const host = match[1] ?? (match[2] === '' ? '0.0.0.0' : (match[2] as string));
  return { host, port };
}

/** Parses a comma-separated list of etcd client URLs; each needs a scheme and a port. */
export function parseEndpoints(raw: string): string[] {
  const items = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new ValueProblem('no endpoint given (e.g. https://10.0.0.1:2379)');
  return [...new Set(items.map(parseEndpoint))];
}

// scheme://[userinfo@]host:port[/...], read from the text itself: URL drops a port equal to the
// scheme's default (http://etcd:80), which would then look like no port at all.
const AUTHORITY = /^([a-z][a-z0-9+.-]*):\/\/(?:([^/@]*)@)?(\[[^\]]*\]|[^/:?#]*)(?::(\d*))?([/?#].*)?$/i;

function parseEndpoint(item: string): string {
  // Never echo what may be a password: every message below quotes the item without its userinfo.
  const shown = item.replace(/^([^/]*\/\/)[^/@]*@/, '$1').replace(/^[^/@]*@/, '');
  const match = AUTHORITY.exec(item);
  if (!match) {
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(item)) throw new ValueProblem(`'${shown}' needs a scheme: http:// or https://`);
    throw new ValueProblem(`'${shown}' is not a URL`);
  }
  const [, scheme = '', userinfo, host = '', port, rest] = match;
  if (userinfo !== undefined) {
    const origin = `${scheme.toLowerCase()}://${host}${port ? `:${port}` : ''}`;
    throw new ValueProblem(`'${origin}' must not carry credentials in the URL; use client certificates`);
  }
  const protocol = scheme.toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') {
    throw new ValueProblem(`'${shown}' has scheme ${protocol}; use http:// or https://`);
  }
  if (host === '' || host === '[]') throw new ValueProblem(`'${shown}' has no host`);
  if (port === undefined || port === '') {
    throw new ValueProblem(`'${shown}' has no port (etcd serves clients on 2379 by default: ${protocol}://${host}:2379)`);
  }
  if (Number(port) < 1 || Number(port) > 65535) throw new ValueProblem(`'${shown}' has port ${port}, out of range (1 to 65535)`);
  if (rest !== undefined && rest !== '/') {
    throw new ValueProblem(`'${shown}' must be scheme://host:port, without path or query`);
  }
  try {
    new URL(item);
  } catch {
    throw new ValueProblem(`'${shown}' is not a URL`);
  }
  return `${protocol}://${host.toLowerCase()}:${Number(port)}`;
}

// RFC 1123 labels and subdomains, as Kubernetes names namespaces and objects.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** Parses `namespace/name` of a Kubernetes object. */
export function parseObjectRef(raw: string): ObjectRef {
  const parts = raw.trim().split('/');
  if (parts.length !== 2) throw new ValueProblem(`'${raw}' is not namespace/name`);
  const [namespace = '', name = ''] = parts;
  if (!DNS_LABEL.test(namespace)) throw new ValueProblem(`'${namespace}' is not a valid namespace (lowercase letters, digits and '-')`);
  if (!DNS_SUBDOMAIN.test(name)) throw new ValueProblem(`'${name}' is not a valid object name (lowercase letters, digits, '-' and '.')`);
  return { namespace, name };
}

/** Parses a Cluster API target: `namespace/name`, or a fleet: `*` (every namespace) or `namespace/*`. */
export function parseCapiTarget(raw: string): CapiTarget {
  const value = raw.trim();
  if (value === '*') return { fleet: true, namespace: null };
  if (value.endsWith('/*')) {
    const namespace = value.slice(0, -2);
    if (!DNS_LABEL.test(namespace)) throw new ValueProblem(`'${namespace}' is not a valid namespace (lowercase letters, digits and '-')`);
    return { fleet: true, namespace };
  }
  try {
    return parseObjectRef(value);
  } catch (error) {
    if (!(error instanceof ValueProblem)) throw error;
    throw new ValueProblem(`${error.message}; a fleet is * or namespace/*`);
  }
}

/** Parses a shard, `<index>/<count>` with 0 <= index < count <= 1000. */
export function parseShard(raw: string): ShardRef {
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(raw.trim());
  if (!match) throw new ValueProblem(`'${raw}' is not <index>/<count> (e.g. 0/1, or 2/3 for the third of three replicas)`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || count > 1000) throw new ValueProblem(`the count ${count} is out of range (1 to 1000)`);
  if (index >= count) throw new ValueProblem(`the index ${index} must be below the count ${count} (indexes start at 0)`);
  return { index, count };
}

/** Parses a kubeconfig reference: `in-cluster`, or the path of a kubeconfig file (read later, by the start-up's file step). */
export function parseKubeconfigRef(raw: string): KubeconfigRef {
  const value = raw.trim();
  return value === 'in-cluster' ? { kind: 'in-cluster' } : { kind: 'file', path: value };
}

/** Checks a label selector's syntax loosely: comma-separated `key`, `!key`, `key=value`, `key!=value`. */
export function parseLabelSelector(raw: string): string {
  const value = raw.trim();
  const term = /^!?[A-Za-z0-9][-A-Za-z0-9_./]*(\s*(==?|!=)\s*[-A-Za-z0-9_.]*)?$/;
  const bad = value.split(',').find((t) => !term.test(t.trim()));
  if (value === '' || bad !== undefined) throw new ValueProblem(`'${raw}' is not a label selector (e.g. node-role.kubernetes.io/control-plane)`);
  return value;
}

/**
 * Parses a comma-separated list of CIDRs (`address/prefix`, IPv4 or IPv6), or `none` for an empty list.
 * Each is kept as written, normalised by the address parser.
 */
export function parseCidrList(raw: string): string[] {
  const value = raw.trim();
  if (value === 'none') return [];
  const items = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (items.length === 0) throw new ValueProblem(`no CIDR given (e.g. 127.0.0.0/8,::1/128, or none)`);
  return items.map((item) => {
    const match = /^([^/]+)\/(\d{1,3})$/.exec(item);
    const family = match ? isIP(match[1] as string) : 0;
    const prefix = match ? Number(match[2]) : -1;
    if (!match || family === 0 || prefix > (family === 4 ? 32 : 128)) throw new ValueProblem(`'${item}' is not a CIDR (address/prefix, e.g. 169.254.0.0/16 or fe80::/10)`);
    return `${(match[1] as string).toLowerCase()}/${prefix}`;
  });
}

/** Parses a comma-separated list of route paths, each one of known (e.g. `/members,/alarms`). */
export function parseRoutePaths(raw: string, known: readonly string[]): string[] {
  const items = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new ValueProblem(`no route given (e.g. ${known.slice(0, 2).join(',')})`);
  for (const item of items) {
    if (!item.startsWith('/')) throw new ValueProblem(`'${item}' is not a path (it must start with /)`);
    const path = item.length > 1 ? item.replace(/\/+$/, '') : item;
    if (!known.includes(path)) throw new ValueProblem(`'${item}' is no route of this service; routes: ${known.join(', ')}`);
  }
  return [...new Set(items.map((item) => (item.length > 1 ? item.replace(/\/+$/, '') : item)))];
}
