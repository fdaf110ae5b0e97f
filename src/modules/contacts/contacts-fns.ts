import { outboundUrlProblem, type AllowList } from '../../infra/outbound.ts';
import type { ErrorDetail } from '../../lib/errors.ts';
import type { ContactStep } from '../notifications/channels/channel.ts';
import { MASKED_SECRET, type ContactType, type NotificationRule, type Target } from './contacts-schemas.ts';

/**
 * A member's contact methods beyond their schema (URLs through the outbound guard, secrets that are never
 * shown and kept when sent back masked), their rules, and the plan the escalation engine pages them by. Pure.
 */


/** A stored method as the plan needs it. */
export interface PlannedMethod {
  id: string;
  type: ContactType;
  target: Target;
}

const SECRET_MIN = 16;

/** The field of each type's target that holds a URL, and the one that holds a secret. */
const URL_FIELD: Record<ContactType, string | null> = { email: null, webhook: 'url', slack: 'webhookUrl', teams: 'webhookUrl', ntfy: 'serverUrl' };
const SECRET_FIELD: Record<ContactType, string | null> = { email: null, webhook: 'secret', slack: null, teams: null, ntfy: 'token' };
/** A field only that type's target has (slack and teams share their shape). */
const TELLING_FIELD: Record<ContactType, string> = { email: 'to', webhook: 'url', slack: 'webhookUrl', teams: 'webhookUrl', ntfy: 'serverUrl' };

const field = (target: Target, name: string | null): string | undefined =>
  name === null ? undefined : (target as Record<string, string | undefined>)[name];

/** Whether a target (valid for some type) has the shape of `type`'s targets. */
export const targetFits = (type: ContactType, target: Target): boolean => TELLING_FIELD[type] in target;

/** What is wrong with a target beyond its schema: the URL (guard, scheme, credentials) and the secret's length. */
export function targetProblems(type: ContactType, target: Target, allow: AllowList, base = '/target'): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  const urlField = URL_FIELD[type];
  const url = field(target, urlField);
  const problem = url === undefined ? null : outboundUrlProblem(url, allow);
  if (problem) errors.push({ path: `${base}/${urlField}`, message: problem });
  const secretField = SECRET_FIELD[type];
  const secret = field(target, secretField);
  if (type === 'webhook' && secret !== undefined && secret !== MASKED_SECRET && secret.length < SECRET_MIN) {
    errors.push({ path: `${base}/${secretField}`, message: `must be ${SECRET_MIN}–256 characters (or ${MASKED_SECRET} to keep the stored secret)` });
  }
  return errors;
}

/**
 * The target to store: a secret sent as the mask becomes the stored one. Without a stored secret the mask is
 * refused, so the mask itself is never stored as a secret.
 */
export function keepSecret(type: ContactType, target: Target, stored: Target | null, base = '/target'): { ok: true; target: Target } | { ok: false; errors: ErrorDetail[] } {
  const name = SECRET_FIELD[type];
  if (field(target, name) !== MASKED_SECRET) return { ok: true, target };
  const kept = stored === null ? undefined : field(stored, name);
  if (kept === undefined) return { ok: false, errors: [{ path: `${base}/${name}`, message: `is the mask ${MASKED_SECRET}, but there is no stored one to keep: send the secret` }] };
  return { ok: true, target: { ...target, [name as string]: kept } as Target };
}

/** A target as responses show it: secrets masked. */
export function publicTarget(type: ContactType, target: Target): Target {
  const name = SECRET_FIELD[type];
  return field(target, name) === undefined ? target : ({ ...target, [name as string]: MASKED_SECRET } as Target);
}

/** The label of a method added without one: what it reaches. */
export function defaultLabel(type: ContactType, target: Target): string {
  const t = target as Record<string, string>;
  switch (type) {
    case 'email': return t.to as string;
    case 'ntfy': return `ntfy ${t.topic}`;
    case 'slack': return `Slack ${hostOf(t.webhookUrl as string)}`;
    case 'teams': return `Teams ${hostOf(t.webhookUrl as string)}`;
    case 'webhook': return `Webhook ${hostOf(t.url as string)}`;
  }
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 60);
  }
};

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
  if (methods.length === 0) return [{ afterMinutes: 0, channel: 'email', target: { to: accountEmail } }];
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
