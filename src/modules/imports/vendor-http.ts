import type { Logger } from 'pino';
import { AppError } from '../../lib/errors.ts';

/**
 * Reads a vendor's REST API for an import: JSON GETs under the `--api-url` the operator gave, with the token
 * in a header (never in a URL, a log line or an error message), 429 answered by waiting (the vendor's
 * `Retry-After`, else its rate-limit period header, else a doubling pause), 401/403 turned into one clear
 * message, and paging links followed only on the same origin, so the token never goes to another host.
 */

export interface VendorHttpOptions {
  /** The vendor's name, for messages ("PagerDuty"). */
  vendor: string;
  baseUrl: string;
  /** The authorization and any other header the vendor wants on every request. */
  headers: Record<string, string>;
  sleep: (ms: number) => Promise<void>;
  log: Logger;
  /** What the token needs to read, for the 401/403 message. */
  needs: string;
}

export interface VendorResponse {
  status: number;
  body: unknown;
}

export interface VendorHttp {
  /** A JSON GET of `pathOrUrl`: a path under the base URL, or an absolute URL on its origin (a paging link). */
  get(pathOrUrl: string, query?: Record<string, string | number | boolean>): Promise<VendorResponse>;
  /** The URL a path resolves to (for paging code that compares links). */
  url(pathOrUrl: string): URL;
}

const MAX_ATTEMPTS = 6;
const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 60_000;
const REQUEST_TIMEOUT_MS = 30_000;
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The `--api-url` as given: http or https, without credentials, query or fragment. */
export function parseApiUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('VALIDATION_ERROR', `--api-url "${raw}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppError('VALIDATION_ERROR', '--api-url must be an http or https URL');
  if (url.username !== '' || url.password !== '') throw new AppError('VALIDATION_ERROR', '--api-url must not carry credentials; pass the token with --token');
  if (url.search !== '' || url.hash !== '') throw new AppError('VALIDATION_ERROR', '--api-url must not have a query or fragment');
  return url;
}

/** Seconds to wait from `Retry-After` (seconds or an HTTP date), else from a rate-limit period header. */
function pauseOf(headers: Headers, now: number): number | null {
  const retry = headers.get('retry-after');
  if (retry !== null) {
    if (/^\d+$/.test(retry.trim())) return Number(retry.trim()) * 1000;
    const at = Date.parse(retry);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  // Opsgenie's throttling answer names its period instead (opsgenie/opsgenie-oas, responses and paths/*.yaml).
  const period = headers.get('x-ratelimit-period-in-sec');
  if (period !== null && /^\d+$/.test(period.trim())) return Number(period.trim()) * 1000;
  return null;
}

async function readJson(res: Response): Promise<unknown> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw new Error(`answer of ${declared} bytes is over the ${MAX_BODY_BYTES}-byte limit`);
  const text = await res.text();
  if (text.length > MAX_BODY_BYTES) throw new Error(`answer is over the ${MAX_BODY_BYTES}-byte limit`);
  return text === '' ? null : JSON.parse(text);
}

export function vendorHttp(opts: VendorHttpOptions): VendorHttp {
  const base = parseApiUrl(opts.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');

  const url = (pathOrUrl: string): URL => {
    if (/^https?:\/\//i.test(pathOrUrl)) {
      const u = new URL(pathOrUrl);
      if (u.origin !== base.origin) {
        throw new AppError('SERVICE_UNAVAILABLE', `${opts.vendor} pointed the next page at ${u.origin}, not at --api-url's ${base.origin}; not following it with your token`);
      }
      return u;
    }
    return new URL(`${base.origin}${prefix}${pathOrUrl}`);
  };

  return {
    url,
    async get(pathOrUrl, query = {}) {
      const target = url(pathOrUrl);
      for (const [k, v] of Object.entries(query)) target.searchParams.append(k, String(v));
      // Logged without the query string: a paging cursor is harmless, but nothing else belongs in the log.
      const where = target.pathname;
      let pause = FIRST_PAUSE_MS;
      for (let attempt = 1; ; attempt++) {
        let res: Response;
        try {
          res = await fetch(target, { headers: { accept: 'application/json', ...opts.headers }, redirect: 'error', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        } catch (err) {
          throw new AppError('SERVICE_UNAVAILABLE', `Could not reach ${opts.vendor} at ${base.origin} (GET ${where}): ${(err as Error).message}`);
        }
        opts.log.debug({ vendor: opts.vendor, path: where, status: res.status, attempt }, 'import: vendor API read');
        if (res.status === 401 || res.status === 403) {
          await res.body?.cancel();
          throw new AppError('UNAUTHORIZED', `${opts.vendor} refused the token (HTTP ${res.status} for GET ${where}): check --token; it needs ${opts.needs}`);
        }
        if (res.status === 429 || res.status === 503) {
          await res.body?.cancel();
          if (attempt >= MAX_ATTEMPTS) throw new AppError('RATE_LIMITED', `${opts.vendor} kept answering ${res.status} (GET ${where}) after ${MAX_ATTEMPTS} attempts; try again later`);
          const wait = Math.min(pauseOf(res.headers, Date.now()) ?? pause, LONGEST_PAUSE_MS);
          opts.log.warn({ vendor: opts.vendor, path: where, status: res.status, waitMs: wait }, 'import: vendor API asks to slow down; waiting');
          await opts.sleep(wait);
          pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
          continue;
        }
        if (res.status < 200 || res.status > 299) {
          await res.body?.cancel();
          throw new AppError('SERVICE_UNAVAILABLE', `${opts.vendor} answered HTTP ${res.status} for GET ${where}`);
        }
        try {
          return { status: res.status, body: await readJson(res) };
        } catch (err) {
          throw new AppError('SERVICE_UNAVAILABLE', `${opts.vendor} sent an answer that is not JSON for GET ${where}: ${(err as Error).message}`);
        }
      }
    },
  };
}

/** Pages of one list, for the paging loops: at most this many, so a vendor that never says "last page" ends. */
export const MAX_PAGES = 1_000;
