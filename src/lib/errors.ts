export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'INVALID_JSON'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE'
  // Too many request bodies being processed at once (the process-wide bound); retried like a store outage.
  | 'OVERLOADED'
  // Refusals of the HTTP layer itself, before a request reaches a route.
  | 'BAD_REQUEST'
  | 'REQUEST_TIMEOUT'
  | 'HEADERS_TOO_LARGE';

/** The one status table: every error code maps to exactly one HTTP status. */
export const STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  BAD_REQUEST: 400,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  SERVICE_UNAVAILABLE: 503,
  OVERLOADED: 503,
};

export interface ErrorDetail {
  path: string;
  message: string;
  /** Facts a client needs to fix the request (e.g. the organizations a sign-in may choose from). */
  [fact: string]: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | null;
  /** Seconds to wait before retrying: until a rate-limit window resets (RATE_LIMITED), or a 503's pause (SERVICE_UNAVAILABLE, OVERLOADED). */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, details: ErrorDetail[] | null = null, retryAfter?: number) {
    super(message);
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }

  get status(): number {
    return STATUS_OF[this.code];
  }
}

export const notFound = (what: string): AppError => new AppError('NOT_FOUND', `${what} not found`);
export const invalid = (path: string, message: string): AppError =>
  new AppError('VALIDATION_ERROR', 'Request validation failed', [{ path, message }]);
export const conflict = (message: string): AppError => new AppError('CONFLICT', message);
