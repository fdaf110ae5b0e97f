import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** One item of an error envelope's `details`: `path` is a JSON pointer into the request (`/name`). */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** A non-2xx answer of the API, carrying its envelope `{error, code, details}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly retryAfter: number | null;

  constructor(status: number, body: unknown, retryAfter: string | null = null) {
    const env = (typeof body === 'object' && body !== null ? body : {}) as { error?: unknown; code?: unknown; details?: unknown };
    super(typeof env.error === 'string' ? env.error : `Request failed (${status})`);
    this.status = status;
    this.code = typeof env.code === 'string' ? env.code : 'UNKNOWN';
    this.details = Array.isArray(env.details) ? (env.details as ErrorDetail[]) : [];
    this.retryAfter = retryAfter === null ? null : Number(retryAfter);
  }

  /** The messages of the details that name `field` (`/field` or below it). */
  forField(field: string): string[] {
    const p = `/${field}`;
    return this.details.filter((d) => d.path === p || d.path.startsWith(`${p}/`)).map((d) => d.message);
  }
}

// The CSRF token lives only in memory: it comes with the session and is never written to storage.
let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const csrf: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: '/api/v1', credentials: 'same-origin' });
api.use(csrf);

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a 2xx answer, or an ApiError carrying the envelope. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, error, response.headers.get('Retry-After'));
  return data as T;
}
