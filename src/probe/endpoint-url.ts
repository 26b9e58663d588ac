/**
 * Normalised URLs, remembered: a round compares every endpoint with every member's advertised URLs (and
 * parsing a URL allocates), while the URLs themselves rarely change. Bounded: emptied when full, so that
 * URLs a peer keeps changing cannot grow it.
 */
const normalized = new Map<string, string>();
const NORMALIZED_MAX = 8192;

/** Normalises a URL to `scheme://host:port` (lowercase), to compare a configured endpoint with advertised URLs. */
export function normalizeEndpoint(url: string): string {
  const known = normalized.get(url);
  if (known !== undefined) return known;
  let value: string;
  try {
    const parsed = new URL(url);
    value = `${parsed.protocol}//${parsed.host}`.toLowerCase();
  } catch {
    value = url.toLowerCase();
  }
  if (normalized.size >= NORMALIZED_MAX) normalized.clear();
  normalized.set(url, value);
  return value;
}

function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host.startsWith('127.') || host === '[::1]';
  } catch {
    return false;
  }
}

/** The client URL to probe a member by: its first non-loopback http(s) URL, else its first http(s) URL. */
export function preferredClientUrl(clientURLs: readonly string[]): string | null {
  const usable = clientURLs.filter((url) => /^https?:\/\//i.test(url) && URL.canParse(url));
  return usable.find((url) => !isLoopback(url)) ?? usable[0] ?? null;
}
