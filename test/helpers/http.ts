/** A response as the tests look at it. */
export interface Got<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly contentType: string;
  readonly body: T;
  readonly text: string;
  /** Wall time of the request. */
  readonly ms: number;
}

/** GETs a URL; parses JSON bodies. */
export async function get<T = any>(url: string, init: RequestInit = {}): Promise<Got<T>> {
  const started = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  const body = contentType.startsWith('application/json') ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, contentType, body, text, ms: performance.now() - started };
}

/** Polls until check passes or the deadline passes; returns the last value. */
export async function eventually<T>(probe: () => Promise<T>, check: (value: T) => boolean, timeoutMs: number, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    value = await probe();
  }
  return value;
}
