/** Normalises a URL to `scheme://host:port` (lowercase), to compare a configured endpoint with advertised URLs. */
export function normalizeEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`.toLowerCase();
  } catch {
    return url.toLowerCase();
  }
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
