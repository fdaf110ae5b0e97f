import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const SCOPES = [
  'alerts:read', 'alerts:write',
  'incidents:read', 'incidents:write',
  'clients:read', 'clients:write',
  'workflows:read', 'workflows:write',
  'schedules:read', 'schedules:write',
  'integrations:read', 'integrations:write',
  'suppression:read', 'suppression:write',
  'heartbeats:read', 'heartbeats:write',
  'escalations:read', 'escalations:write',
  'users:read', 'users:write',
  'api_keys:read', 'api_keys:write',
  'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export type KeyEnv = 'live' | 'test';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 base62 characters carry 190 bits of randomness. */
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^af_(live|test)_([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);
export const VISIBLE_PREFIX_LENGTH = 12;

function base62(value: number, width: number): string {
  let out = '';
  let n = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

/** A new key: `af_<env>_` + random secret + CRC32 checksum (so scanners and we can spot a typo'd or fake key offline). */
export function generateKey(env: KeyEnv): string {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += ALPHABET[randomInt(62)];
  const body = `af_${env}_${secret}`;
  return body + checksum(body);
}

/** True when the key has our shape, the expected environment prefix and a valid checksum; no lookup needed. */
export function isWellFormedKey(key: string, env: KeyEnv): boolean {
  const m = KEY_PATTERN.exec(key);
  if (!m || m[1] !== env) return false;
  const given = Buffer.from(m[3] as string);
  const expected = Buffer.from(checksum(`af_${m[1]}_${m[2]}`));
  return timingSafeEqual(given, expected);
}

/** Keys carry 190 random bits, so a plain SHA-256 is preimage-safe and stays indexable. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export const visiblePrefix = (key: string): string => key.slice(0, VISIBLE_PREFIX_LENGTH);

/**
 * What a caller holds when it hands access on: its scopes, and when it stops working (an API key's expiry;
 * null for a session or a key without one).
 */
export interface Grantor {
  scopes: ReadonlySet<string>;
  expiresAt: number | null;
}

/**
 * The one rule for handing access on (minting a key; adding or promoting a member, or issuing a member's
 * set-password link, which signs in with the member's role): a caller grants only scopes it holds itself,
 * and a key it mints does not outlive it (`expiresAt` given: null is "never"). Why not (a sentence about
 * `what`, e.g. "The role admin"), or null. `caller`
 * null is a trusted caller (the CLI), which may grant anything.
 */
export function grantRefusal(caller: Grantor | null, grant: { what: string; scopes: readonly string[]; expiresAt?: number | null }): string | null {
  if (caller === null) return null;
  const missing = grant.scopes.filter((s) => !caller.scopes.has(s));
  if (missing.length > 0) return `${grant.what} needs scopes the caller does not hold: ${missing.join(', ')}`;
  const ends = caller.expiresAt;
  if (grant.expiresAt !== undefined && ends !== null && (grant.expiresAt === null || grant.expiresAt > ends)) {
    return `${grant.what} would outlive the calling key, which expires at ${new Date(ends).toISOString()}`;
  }
  return null;
}

/** The key management scope: whoever holds it can mint and revoke keys. */
export const KEY_ADMIN_SCOPE: Scope = 'api_keys:write';

export interface KeyScopes {
  id: string;
  scopes: readonly string[];
}

/**
 * Why a revocation must be refused, or null. A caller cannot revoke a key that holds a scope it lacks
 * itself (or a narrow key could remove broader ones), and a key cannot revoke the organization's last
 * usable key holding `api_keys:write`: nothing could then mint a key again. `callerScopes` null is a
 * trusted caller (the CLI); `byKey` false is a signed-in owner, who may revoke the last one.
 */
export function revocationRefusal(
  target: KeyScopes,
  usable: readonly KeyScopes[],
  caller: { scopes: ReadonlySet<string> | null; byKey: boolean },
): { code: 'FORBIDDEN' | 'CONFLICT'; message: string } | null {
  const missing = caller.scopes ? target.scopes.filter((s) => !caller.scopes?.has(s)) : [];
  if (missing.length > 0) return { code: 'FORBIDDEN', message: `Cannot revoke a key holding scopes the calling key does not hold: ${missing.join(', ')}` };
  const lastAdmin = target.scopes.includes(KEY_ADMIN_SCOPE) && !usable.some((k) => k.id !== target.id && k.scopes.includes(KEY_ADMIN_SCOPE));
  if (caller.byKey && lastAdmin) {
    return { code: 'CONFLICT', message: `This is the organization's last key holding ${KEY_ADMIN_SCOPE}; an API key cannot revoke it. Revoke it from the dashboard or with the alertflow CLI.` };
  }
  return null;
}
