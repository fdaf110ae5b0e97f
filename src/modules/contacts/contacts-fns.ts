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
