/** The catalogue of errors the API answers with: each code has one HTTP status. */
export const API_ERRORS = {
  INVALID_PARAMETER: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_FOUND: 404,
  MEMBER_NOT_FOUND: 404,
  INTERNAL: 500,
  NO_MEMBER_REACHABLE: 503,
  ALARMS_UNKNOWN: 503,
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
