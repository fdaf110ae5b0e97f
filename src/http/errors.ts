import type { FastifyError, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { isStoreUnavailable } from '../db/database.ts';
import { AppError, type ErrorDetail } from '../lib/errors.ts';
import { errorSummary } from '../lib/logger.ts';

/** How long a client is asked to wait while the store is unreachable: about what a database restart takes. */
export const STORE_RETRY_AFTER_SECONDS = 2;

export interface AjvIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

export function detailOf(issue: AjvIssue): ErrorDetail {
  const base = issue.instancePath ?? '';
  if (issue.keyword === 'required') return { path: `${base}/${String(issue.params?.missingProperty)}`, message: 'is required' };
  if (issue.keyword === 'discriminator') {
    const tag = String(issue.params?.tag);
    return { path: `${base}/${tag}`, message: issue.params?.error === 'mapping' ? `is not a known ${tag}` : 'is required' };
  }
  if (issue.keyword === 'additionalProperties') return { path: `${base}/${String(issue.params?.additionalProperty)}`, message: 'is not an allowed field' };
  // Ajv's own words ("must NOT have fewer than 1 characters") are shown next to form fields as they are.
  const limit = Number(issue.params?.limit);
  if (issue.keyword === 'minLength') return { path: base, message: limit === 1 ? 'must not be empty' : `must be at least ${limit} characters` };
  if (issue.keyword === 'maxLength') return { path: base, message: `must be at most ${limit} characters` };
  if (issue.keyword === 'minItems') return { path: base, message: limit === 1 ? 'needs at least one entry' : `needs at least ${limit} entries` };
  if (issue.keyword === 'maxItems') return { path: base, message: `takes at most ${limit} entries` };
  return { path: base, message: issue.message ?? 'is invalid' };
}

const FASTIFY_CODES: Record<string, () => AppError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MiB'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError('INVALID_JSON', 'Request body length does not match Content-Length'),
  // The router's own rejections (a path segment over its length limit, a malformed %-escape) name no
  // record or route: they are our 404.
  FST_ERR_MAX_PARAM_LENGTH: () => new AppError('NOT_FOUND', 'Not found'),
  FST_ERR_BAD_URL: () => new AppError('NOT_FOUND', 'Not found'),
};

/** Every error a request can meet, as one of our codes; anything unexpected is INTERNAL_ERROR with no detail. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (Array.isArray(e.validation)) {
    const where = e.validationContext === 'body' ? 'Request body' : `Request ${e.validationContext ?? 'input'}`;
    return new AppError('VALIDATION_ERROR', `${where} is invalid`, e.validation.map(detailOf));
  }
  if (isStoreUnavailable(err)) return new AppError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry later', null, STORE_RETRY_AFTER_SECONDS);
  const known = e.code ? FASTIFY_CODES[e.code] : undefined;
  if (known) return known();
  if (e.statusCode === 400) return new AppError('VALIDATION_ERROR', 'Bad request');
  if (e.statusCode === 404) return new AppError('NOT_FOUND', 'Not found');
  return new AppError('INTERNAL_ERROR', 'Internal server error');
}

/** The ingest token, a page's acknowledge link and a calendar feed's token are credentials: they never reach a log line. */
export const redactUrl = (url: string): string => url.replace(/(\/api\/inbound\/(?:webhook|heartbeat)\/|^\/api\/calendar\/|^\/links\/)[^/?#]+/, '$1[redacted]');

/** A request's error as one of our codes, logged when it is the server's fault (every error handler calls this). */
export function reportedError(err: unknown, req: FastifyRequest): AppError {
  const e = toAppError(err);
  if (e.code === 'SERVICE_UNAVAILABLE') req.log.warn({ error: errorSummary(err), method: req.method }, 'store unavailable');
  if (e.code === 'INTERNAL_ERROR') req.log.error({ error: errorSummary(err), url: redactUrl(req.url), method: req.method, orgId: req.principal?.orgId ?? req.integration?.org_id }, 'request failed');
  return e;
}

/** The one error envelope of every REST and ingest error response: `{error, code, details}`. */
export const errorBody = (e: AppError) => ({ error: e.message, code: e.code, details: e.details });

const CLIENT_ERRORS: Record<string, () => AppError> = {
  ERR_HTTP_REQUEST_TIMEOUT: () => new AppError('REQUEST_TIMEOUT', 'The request did not arrive in time'),
  HPE_HEADER_OVERFLOW: () => new AppError('HEADERS_TOO_LARGE', 'The request line and headers are over 16 KiB'),
};

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (headers too large, a timeout,
 * malformed HTTP such as a non-numeric Content-Length); they get the same envelope as every other error.
 * The connection is closed, as Node and Fastify do: the parser cannot tell where the next request starts.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const e = (err.code ? CLIENT_ERRORS[err.code] : undefined)?.() ?? new AppError('BAD_REQUEST', 'Malformed HTTP request');
  const body = JSON.stringify(errorBody(e));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
