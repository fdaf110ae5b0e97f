import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter, LimitResult } from '../infra/rate-limit.ts';
import type { Actor } from '../lib/actor.ts';
import { AppError } from '../lib/errors.ts';
import type { Scope } from '../modules/api-keys/api-keys-fns.ts';
import type { ApiKeysService, Principal } from '../modules/api-keys/api-keys-service.ts';
import type { AuditService } from '../modules/audit/audit-service.ts';
import { SESSION_COOKIE, sameOriginOrNone, sameSecret } from '../modules/auth/auth-fns.ts';
import type { AuthService } from '../modules/auth/auth-service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** The scope a REST operation needs; absent only on public routes. */
    scope?: Scope;
  }
}

export interface Limits {
  api: RateLimiter;
  ingest: RateLimiter;
  apiKeysPerDay: RateLimiter;
  /** Failed attempts per address (REST and ingest together). */
  authFailures: RateLimiter;
  signInFailuresPerAddress: RateLimiter;
  signInFailuresPerAccountAddress: RateLimiter;
  signInFailuresPerAccount: RateLimiter;
  signInFailuresPerDevice: RateLimiter;
  /** Failed attempts per identifiable credential: an API key's visible prefix. */
  credentialFailures: RateLimiter;
}

function setLimitHeaders(reply: FastifyReply, r: LimitResult): void {
  reply.header('X-RateLimit-Limit', r.limit);
  reply.header('X-RateLimit-Remaining', r.remaining);
  reply.header('X-RateLimit-Reset', r.resetSeconds);
}

const rateLimited = (r: LimitResult): AppError =>
  new AppError('RATE_LIMITED', `Rate limit exceeded; retry in ${r.resetSeconds} s`, null, r.resetSeconds);

/** Counts one request against `key`'s budget, shows the budget in the headers, and refuses it when spent. */
export async function spend(limiter: RateLimiter, key: string, reply: FastifyReply): Promise<void> {
  const budget = await limiter.consume(key);
  setLimitHeaders(reply, budget);
  if (!budget.allowed) throw rateLimited(budget);
}

/**
 * A failed authentication: counted against the address and, when it names one, the credential; over
 * either limit it is 429 instead of 401. Only failures are ever refused this way: a valid key or token
 * is looked up and accepted whatever its address's count (behind a proxy without TRUST_PROXY every
 * sender shares one address, and one bad sender must not stop the others).
 */
export async function authFailed(limits: Limits, ip: string, message: string, credential: string | null = null): Promise<never> {
  const counts = await Promise.all([limits.authFailures.consume(ip), ...(credential === null ? [] : [limits.credentialFailures.consume(credential)])]);
  const over = counts.filter((c) => !c.allowed).sort((a, b) => b.resetSeconds - a.resetSeconds)[0];
  if (over) throw rateLimited(over);
  throw new AppError('UNAUTHORIZED', message);
}

/** The credential of an `Authorization: Bearer <credential>` header, if the header has that form. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

export const principalOf = (req: FastifyRequest): Principal => {
  if (!req.principal) throw new AppError('UNAUTHORIZED', 'Authentication required');
  return req.principal;
};
export const actorOf = (req: FastifyRequest): Actor => principalOf(req).actor;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A cookie-authenticated change must carry the session's CSRF token in `X-CSRF-Token`: a page on another
 * site can make the browser send the cookie, but cannot read the token.
 */
export function checkCsrf(req: FastifyRequest, csrfToken: string): void {
  if (SAFE_METHODS.has(req.method)) return;
  const sent = req.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !sameSecret(sent, csrfToken)) {
    throw new AppError('FORBIDDEN', 'Missing or wrong X-CSRF-Token header (required with the session cookie)');
  }
}

/** Login and setup have no session yet: a browser posting them from another site (login CSRF) is refused. */
export function checkOrigin(req: FastifyRequest, baseUrl: string): void {
  if (!sameOriginOrNone(req.headers.origin, baseUrl)) throw new AppError('FORBIDDEN', 'Cross-origin request refused');
}

/**
 * The REST checks, in the contract's order: authentication (401) → rate limit (429) in `onRequest`;
 * scope (403) in `preParsing`, so route-level limits run between them and all come before the body is
 * read (415, 413, 400).
 */
export function restAuth(deps: { apiKeys: ApiKeysService; auth: AuthService; limits: Limits; audit: AuditService }) {
  const { apiKeys, auth, limits, audit } = deps;
  return {
    async onRequest(req: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (!req.routeOptions.config.scope) return;
      const header = req.headers.authorization;
      // A bearer header, when present, decides alone; the session cookie is the alternative without one.
      const cookie = header === undefined ? req.cookies[SESSION_COOKIE] : undefined;
      if (cookie !== undefined) {
        const session = await auth.authenticate(cookie);
        if (!session) return authFailed(limits, req.ip, 'Session expired or signed out; sign in again');
        req.principal = { orgId: session.orgId, scopes: session.scopes, actor: { type: 'user', id: session.userId }, keyId: null, expiresAt: null, csrfToken: session.csrfToken };
        await spend(limits.api, session.orgId, reply);
        return;
      }
      const key = bearerToken(header);
      if (key === undefined) return authFailed(limits, req.ip, 'Missing or malformed Authorization header; expected "Bearer <API key>"');
      const principal = await apiKeys.authenticate(key);
      if (!principal) return authFailed(limits, req.ip, 'Invalid, expired or revoked API key', apiKeys.credentialOf(key));
      req.principal = principal;
      await spend(limits.api, principal.orgId, reply);
    },
    async preParsing(req: FastifyRequest): Promise<void> {
      const scope = req.routeOptions.config.scope;
      const p = req.principal;
      if (!scope || !p) return;
      if (p.csrfToken !== null) checkCsrf(req, p.csrfToken);
      if (!p.scopes.has(scope)) throw new AppError('FORBIDDEN', `${p.keyId ? 'This API key' : 'Your role'} lacks the required scope: ${scope}`);
    },
    async onResponse(req: FastifyRequest, reply: FastifyReply): Promise<void> {
      const p = req.principal;
      if (!p?.keyId) return;
      audit.recordKeyUse({
        orgId: p.orgId,
        keyId: p.keyId,
        method: req.method,
        path: req.url.split('?')[0] as string,
        status: reply.statusCode,
        ip: req.ip,
      });
    },
  };
}

/**
 * Asks again whether the credential of `req` is still good, without counting a use: its scopes now, or null
 * once the key is revoked or expired, or the session ended or its member removed. For requests that outlive
 * their authentication (the event stream).
 */
export function recheckOf(req: FastifyRequest, deps: { apiKeys: ApiKeysService; auth: AuthService }): () => Promise<ReadonlySet<string> | null> {
  const key = bearerToken(req.headers.authorization);
  if (key !== undefined) return async () => (await deps.apiKeys.authenticate(key))?.scopes ?? null;
  const cookie = req.cookies[SESSION_COOKIE] ?? '';
  return () => deps.auth.scopesOf(cookie);
}
