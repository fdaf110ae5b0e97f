import { randomBytes, randomUUID } from 'node:crypto';
import { hashToken } from '../auth/auth-fns.ts';

/** Characters of an ingest token left visible to callers without `integrations:write`, to tell tokens apart. */
export const VISIBLE_TOKEN_CHARS = 4;

/** An ingest token as a reader sees it: enough to recognize it, never enough to ingest with it. */
export const maskToken = (token: string): string => `…${token.slice(-VISIBLE_TOKEN_CHARS)}`;

/** 192 random bits, URL-safe: the token travels in the ingest URL path. */
export const newToken = (): string => randomBytes(24).toString('base64url');

/** The shapes senders check before they send: PagerDuty's 32 lowercase hex characters, Opsgenie's UUID. */
export const ROUTING_KEY_SHAPE = /^[0-9a-f]{32}$/;
export const GENIE_KEY_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The digest a vendor-style key is looked up by (migration 0019). */
export const keyDigest = hashToken;

/** An integration's credentials, all issued (and rotated) together: the ingest token and the two vendor-style keys. */
export function newCredentials() {
  const routingKey = randomBytes(16).toString('hex');
  const genieKey = randomUUID();
  return {
    token: newToken(),
    routing_key: routingKey,
    routing_key_digest: keyDigest(routingKey),
    genie_key: genieKey,
    genie_key_digest: keyDigest(genieKey),
  };
}
