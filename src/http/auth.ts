import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter, LimitResult } from '../infra/rate-limit.ts';
import type { Actor } from '../lib/actor.ts';
import { AppError } from '../lib/errors.ts';
import type { Scope } from '../modules/api-keys/api-keys-fns.ts';
import type { ApiKeysService, Principal } from '../modules/api-keys/api-keys-service.ts';
import type { AuditService } from '../modules/audit/audit-service.ts';

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
  authFailures: RateLimiter;
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

/** Refuses an address that failed authentication too often (REST and ingest together). */
export async function checkAuthFailures(limits: Limits, ip: string): Promise<void> {
  const state = await limits.authFailures.peek(ip);
  if (state.remaining === 0) throw rateLimited(state);
}

export async function authFailed(limits: Limits, ip: string, message: string): Promise<never> {
  await limits.authFailures.consume(ip);
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
export const actorOf = (req: FastifyRequest): Actor => ({ type: 'api_key', id: principalOf(req).keyId });

/**
 * The REST checks, in the contract's order: authentication (401) → rate limit (429) in `onRequest`;
 * scope (403) in `preParsing`, so route-level limits run between them and all come before the body is
 * read (415, 413, 400).
 */
export function restAuth(deps: { apiKeys: ApiKeysService; limits: Limits; audit: AuditService }) {
  const { apiKeys, limits, audit } = deps;
  return {
    async onRequest(req: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (!req.routeOptions.config.scope) return;
      await checkAuthFailures(limits, req.ip);
      const token = bearerToken(req.headers.authorization);
      if (token === undefined) return authFailed(limits, req.ip, 'Missing or malformed Authorization header; expected "Bearer <API key>"');
      const principal = await apiKeys.authenticate(token);
      if (!principal) return authFailed(limits, req.ip, 'Invalid, expired or revoked API key');
      req.principal = principal;
      await spend(limits.api, principal.orgId, reply);
    },
    async preParsing(req: FastifyRequest): Promise<void> {
      const scope = req.routeOptions.config.scope;
      if (!scope || !req.principal) return;
      if (!req.principal.scopes.has(scope)) throw new AppError('FORBIDDEN', `This API key lacks the required scope: ${scope}`);
    },
    async onResponse(req: FastifyRequest, reply: FastifyReply): Promise<void> {
      const p = req.principal;
      if (!p) return;
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
