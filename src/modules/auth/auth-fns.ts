import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SCOPES, type Scope } from '../api-keys/api-keys-fns.ts';
import type { Role } from '../users/users-schemas.ts';

export const SESSION_COOKIE = 'af_session';

/**
 * OWASP's "device cookie" (Slow Down Online Guessing Attacks with Device Cookies): set at each sign-in, it tells
 * a browser the person signed in from before. Its value is `<nonce>.<HMAC of account and nonce>`: it names no
 * account, is worth nothing for another one and cannot be forged without the server's secret.
 */
export const DEVICE_COOKIE = 'af_device';
/** Only sign-in reads it. */
export const DEVICE_COOKIE_PATH = '/api/v1/auth';
export const DEVICE_COOKIE_DAYS = 365;

const deviceMac = (secret: string, account: string, nonce: string): string =>
  createHmac('sha256', `device-cookie:${secret}`).update(`${account}\n${nonce}`).digest('base64url');

/** A new device cookie value for `account` (the normalized email). */
export function deviceCookieFor(secret: string, account: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${nonce}.${deviceMac(secret, account, nonce)}`;
}

/** The device a cookie value names, when it was issued by this server for `account`; else null. */
export function deviceOf(secret: string, account: string, cookie: string | undefined): string | null {
  const [nonce, mac, ...rest] = (cookie ?? '').split('.');
  if (!nonce || !mac || rest.length > 0) return null;
  return sameSecret(mac, deviceMac(secret, account, nonce)) ? nonce : null;
}

/** What each role may do, as the scopes an API key would need for it. */
const MEMBER_SCOPES: readonly Scope[] = [...SCOPES.filter((s) => s.endsWith(':read')), 'alerts:write', 'incidents:write'];
export const scopesOfRole = (role: Role): readonly Scope[] => (role === 'member' ? MEMBER_SCOPES : SCOPES);

/** 256 random bits: a session id, a CSRF token or a setup token. */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** Tokens are random, so a plain SHA-256 is preimage-safe and stays indexable. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Constant-time equality of two strings (false for different lengths). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface SessionTimes {
  createdAt: number;
  lastSeenAt: number;
}
export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
}

/** When a session stops being accepted: idle expiry (sliding) or absolute expiry, whichever comes first. */
export const sessionExpiry = (s: SessionTimes, l: SessionLimits): number => Math.min(s.lastSeenAt + l.idleMs, s.createdAt + l.absoluteMs);

/**
 * A browser sends `Origin` on cross-site POSTs; a sign-in or setup posted from another site (login CSRF)
 * is refused. Requests without `Origin` (curl, same-origin GETs of older browsers) are not browser forgeries.
 */
export const sameOriginOrNone = (origin: string | undefined, baseUrl: string): boolean =>
  origin === undefined || origin === new URL(baseUrl).origin;
