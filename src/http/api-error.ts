/** The catalogue of errors the API answers with: each code has one HTTP status. */
export const API_ERRORS = {
  INVALID_PARAMETER: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  MEMBER_NOT_FOUND: 404,
  CLUSTER_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  URI_TOO_LONG: 414,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  NO_MEMBER_REACHABLE: 503,
  ALARMS_UNKNOWN: 503,
  CLUSTER_NOT_PROBED: 503,
  VERDICT_UNAVAILABLE: 503,
  SHUTTING_DOWN: 503,
} as const;

/** An error code of the catalogue. */
export type ApiErrorCode = keyof typeof API_ERRORS;

/** An error a route throws on purpose; the error handler renders it as `{error, message}`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ApiErrorCode;
  readonly statusCode: number;

  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.code = code;
    this.statusCode = API_ERRORS[code];
  }
}

/** The JSON body of every error response. */
export function errorBody(code: ApiErrorCode, message: string): { error: ApiErrorCode; message: string } {
  return { error: code, message };
}

/** The text body of an error, for clients that prefer text/plain: `CODE: message`. */
export function errorText(code: ApiErrorCode, message: string): string {
  return `${code}: ${message}\n`;
}

const SAFE = /[^A-Za-z0-9_.\-/]/g;

/**
 * A piece of the request (a parameter's name, a path) as an error message may show it: at most `max`
 * characters, everything but letters, digits and `_.-/` shown as `?`. Never the input verbatim, so an
 * error cannot carry markup, control characters or a pasted secret back to a log or a browser.
 */
export function sanitised(input: string, max = 40): string {
  const shown = input.slice(0, max).replace(SAFE, '?');
  return input.length > max ? `${shown}…` : shown;
}
