import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { ErrorDetail } from '../../lib/errors.ts';
import type { ChannelTarget } from '../notifications/channels/channel.ts';
import { ACCOUNT_FALLBACK, type ChannelType } from '../notifications/channels/registry.ts';
import type { NotificationRule } from './contacts-schemas.ts';

/**
 * A member's notification rules and the plan the escalation engine pages them by. Pure. (What a target may
 * be, which of its fields are secrets or URLs, is the channel's own declaration: notifications/channels.)
 */

/** How a member is paged: the contacts module's personal rules ("ntfy now, email after 3 minutes"). */
export interface ContactStep {
  afterMinutes: number;
  channel: ChannelType;
  /** That channel's target, secrets in clear. */
  target: ChannelTarget;
}
export interface MemberContacts {
  planFor(orgId: string, userId: string): Promise<ContactStep[]>;
}

/** A stored method as the plan needs it. */
export interface PlannedMethod {
  id: string;
  type: ChannelType;
  target: ChannelTarget;
}

/** Rules naming a method that is not one of the member's (`methodIds`), or listed twice, with their paths. */
export function ruleProblems(rules: readonly NotificationRule[], methodIds: ReadonlySet<string>, base = '/rules'): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  const seen = new Set<string>();
  rules.forEach((r, i) => {
    if (!methodIds.has(r.contactMethodId)) errors.push({ path: `${base}/${i}/contactMethodId`, message: 'is not one of your contact methods' });
    const key = `${r.contactMethodId}\n${r.afterMinutes}`;
    if (seen.has(key)) errors.push({ path: `${base}/${i}`, message: 'is listed twice (same method, same minutes)' });
    seen.add(key);
  });
  return errors;
}

/**
 * How a member is paged, PagerDuty-like but never silent:
 * - no contact method: by email at their account address, at once;
 * - methods but no rules (or none naming a method still there): every method at once, in the order added;
 * - rules: each rule's method after its minutes, earliest first (ties keep the member's order).
 */
export function planOf(accountEmail: string, methods: readonly PlannedMethod[], rules: readonly NotificationRule[]): ContactStep[] {
  if (methods.length === 0) return [{ afterMinutes: 0, channel: ACCOUNT_FALLBACK.channel, target: ACCOUNT_FALLBACK.target(accountEmail) }];
  const byId = new Map(methods.map((m) => [m.id, m]));
  const steps: ContactStep[] = [];
  for (const r of rules) {
    const m = byId.get(r.contactMethodId);
    if (m) steps.push({ afterMinutes: r.afterMinutes, channel: m.type, target: m.target });
  }
  if (steps.length === 0) return methods.map((m) => ({ afterMinutes: 0, channel: m.type, target: m.target }));
  // Array.prototype.sort is stable: equal delays stay in the member's order.
  return steps.sort((a, b) => a.afterMinutes - b.afterMinutes);
}

// ---- Verification of a target (a phone number confirmed by a code sent to it) ----------------------------

/** A code lives ten minutes, takes five wrong guesses, and a method gets five codes an hour. */
export const VERIFY = { codeTtlMs: 10 * 60_000, maxAttempts: 5, maxSends: 5, windowMs: 3_600_000 } as const;

/** The stored form of a code: a hash bound to its method (a code for one method proves nothing for another). */
export const codeHash = (methodId: string, code: string): string => createHash('sha256').update(`${methodId}:${code}`).digest('hex');

export const newCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** The code as a phone reads it, digit by digit ("1 2 3 4 5 6"), and as a text shows it. */
export const codeNotice = (code: string) => ({
  event: 'contact.verification',
  subject: 'Your AlertFlow code',
  text: `Your AlertFlow code is ${code.split('').join(' ')}. It expires in 10 minutes. If you did not ask for it, ignore this message.`,
});

export interface VerifyState {
  verify_code_hash: string | null;
  verify_expires_at: number | null;
  verify_attempts: number;
  verify_sends: number;
  verify_window_at: number | null;
}

/** Whether another code may be sent now, and the counters after sending it: at most `maxSends` in a rolling window. */
export function mayResend(s: VerifyState, now: number): { ok: true; sends: number; windowAt: number } | { ok: false; retryAfterMs: number } {
  const fresh = s.verify_window_at === null || now - s.verify_window_at >= VERIFY.windowMs;
  if (fresh) return { ok: true, sends: 1, windowAt: now };
  if (s.verify_sends >= VERIFY.maxSends) return { ok: false, retryAfterMs: (s.verify_window_at as number) + VERIFY.windowMs - now };
  return { ok: true, sends: s.verify_sends + 1, windowAt: s.verify_window_at as number };
}

/** What a guess at the code comes to: right (in constant time), wrong (one more attempt counted), or no live code. */
export function checkCode(methodId: string, s: VerifyState, code: string, now: number): 'right' | 'wrong' | 'expired' | 'none' | 'locked' {
  if (s.verify_code_hash === null || s.verify_expires_at === null) return 'none';
  if (now >= s.verify_expires_at) return 'expired';
  if (s.verify_attempts >= VERIFY.maxAttempts) return 'locked';
  const given = Buffer.from(codeHash(methodId, code.trim()), 'hex');
  const stored = Buffer.from(s.verify_code_hash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored) ? 'right' : 'wrong';
}

/** A link code lives 15 minutes. */
export const LINK_TTL_MS = 15 * 60_000;
const LINK_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Eight characters a person can type from a screen (no 0/O, 1/I): 40 bits, used once, within 15 minutes. */
export const linkCode = (): string => Array.from({ length: 8 }, () => LINK_ALPHABET[randomInt(0, LINK_ALPHABET.length)]).join('');
