import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AllowList } from '../../infra/outbound.ts';
import type { ErrorDetail } from '../../lib/errors.ts';
import type { ChannelTarget } from '../notifications/channels/channel.ts';
import { channelOf, type ChannelType } from '../notifications/channels/registry.ts';
import { keepSecrets, maskTarget, targetProblems } from '../notifications/channels/target-fns.ts';
import type { Step, Target } from './escalations-schemas.ts';

/** The escalation's copy of its policy. */
export interface PolicySnapshot {
  name: string;
  steps: Step[];
  repeat: number;
}

/** Where an escalation goes after firing `step` (from 1) of round `repeat` (from 0): the next step, the next round, or nowhere. */
export function nextStep(policy: Pick<PolicySnapshot, 'steps' | 'repeat'>, repeat: number, step: number): { repeat: number; step: number } | null {
  if (step < policy.steps.length) return { repeat, step: step + 1 };
  if (repeat < policy.repeat) return { repeat: repeat + 1, step: 1 };
  return null;
}

/** Step 1 after a reassignment also pages the new assignee (once, even if the policy names them already). */
export function stepTargets(policy: Pick<PolicySnapshot, 'steps'>, step: number, assigneeId: string | null): Target[] {
  const targets = [...(policy.steps[step - 1]?.targets ?? [])];
  if (step === 1 && assigneeId !== null && !targets.some((t) => t.type === 'user' && t.id === assigneeId)) targets.unshift({ type: 'user', id: assigneeId });
  return targets;
}

const short = (s: string): string => createHash('sha256').update(s).digest('base64url').slice(0, 16);

/**
 * The idempotency key of one page: per escalation, round, step and recipient (a member's contact step, or a
 * channel target's hash), so a step job that runs twice sends each page once.
 */
export function pageKey(escalationId: string, repeat: number, step: number, who: { userId: string; contact: number } | { channel: ChannelType; target: unknown }): string {
  const recipient = 'userId' in who ? `${who.userId}/${who.contact}` : short(`${who.channel}:${JSON.stringify(who.target)}`);
  return `esc:${escalationId}:${repeat}:${step}:${recipient}`;
}

/** Problems of a policy's steps beyond their schema: channel targets against their channel's declaration, and the ids it names. */
export function checkSteps(steps: readonly Step[], allow: AllowList): { errors: ErrorDetail[]; users: Map<string, string>; schedules: Map<string, string> } {
  const errors: ErrorDetail[] = [];
  const users = new Map<string, string>();
  const schedules = new Map<string, string>();
  steps.forEach((s, i) => s.targets.forEach((t, j) => {
    const path = `/steps/${i}/targets/${j}`;
    if (t.type === 'user') users.set(t.id, `${path}/id`);
    else if (t.type === 'schedule') schedules.set(t.id, `${path}/id`);
    else errors.push(...targetProblems(channelOf(t.channel), t.target, allow, `${path}/target`));
  }));
  return { errors, users, schedules };
}

const channelTargets = (steps: readonly Step[]) => steps.flatMap((s, i) => s.targets.map((t, j) => ({ t, path: `/steps/${i}/targets/${j}/target` })))
  .filter((x): x is { t: Extract<Target, { type: 'channel' }>; path: string } => x.t.type === 'channel');

/** Steps as responses show them: every channel target's secrets masked. */
export const maskSteps = (steps: readonly Step[]): Step[] =>
  steps.map((s) => ({ ...s, targets: s.targets.map((t) => (t.type === 'channel' ? { ...t, target: maskTarget(channelOf(t.channel), t.target) } : t)) }));

/** New steps whose masked secrets take the stored ones of the same channel target (`keepSecrets`); 400 details otherwise. */
export function keepStepSecrets(steps: readonly Step[], stored: readonly Step[]): { ok: true; steps: Step[] } | { ok: false; errors: ErrorDetail[] } {
  const errors: ErrorDetail[] = [];
  const old = channelTargets(stored).map((x) => x.t);
  const kept = steps.map((s, i) => ({
    ...s,
    targets: s.targets.map((t, j) => {
      if (t.type !== 'channel') return t;
      const r = keepSecrets(channelOf(t.channel), t.target, old.filter((o) => o.channel === t.channel).map((o): ChannelTarget => o.target), `/steps/${i}/targets/${j}/target`);
      if (!r.ok) errors.push(...r.errors);
      return r.ok ? { ...t, target: r.target } : t;
    }),
  }));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, steps: kept };
}

/** Whether a workflow's stored actions name the policy (its `escalate` action, or `create_incident`'s escalationPolicyId). */
export const namesPolicy = (actions: ReadonlyArray<Record<string, unknown>>, policyId: string): boolean =>
  actions.some((a) => (a.type === 'escalate' && a.policyId === policyId) || (a.type === 'create_incident' && a.escalationPolicyId === policyId));

// ---- Acknowledge links --------------------------------------------------------------------------------

export const LINK_ACTIONS = ['acknowledge', 'resolve'] as const;
export type LinkAction = (typeof LINK_ACTIONS)[number];
export const LINK_TTL_MS = 24 * 3_600_000;

export interface LinkClaims {
  orgId: string;
  incidentId: string;
  /** The member paged; null for a page to a channel. */
  recipientId: string | null;
  action: LinkAction;
  expiresAt: number;
}

const mac = (secret: string, body: string): Buffer => createHmac('sha256', `page-link:${secret}`).update(body).digest();

/** `<claims>.<HMAC>`, both base64url: signed with the server secret, single-purpose (one incident, one recipient, one action). */
export function signLink(secret: string, claims: LinkClaims): string {
  const body = Buffer.from(JSON.stringify([claims.orgId, claims.incidentId, claims.recipientId, claims.action, claims.expiresAt])).toString('base64url');
  return `${body}.${mac(secret, body).toString('base64url')}`;
}

export type LinkCheck = { ok: true; claims: LinkClaims } | { ok: false; reason: 'invalid' | 'expired'; claims?: LinkClaims };

/** Verifies the signature (in constant time) and the expiry. */
export function verifyLink(secret: string, token: string, now: number): LinkCheck {
  const [body, sig, ...rest] = token.split('.');
  if (!body || !sig || rest.length > 0) return { ok: false, reason: 'invalid' };
  // Compared as text: base64url decoding ignores the spare bits of the last character, so another spelling of
  // the same signature would verify and, hashed differently, pass as an unused link.
  const given = Buffer.from(sig);
  const expected = Buffer.from(mac(secret, body).toString('base64url'));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  let claims: LinkClaims;
  try {
    const [orgId, incidentId, recipientId, action, expiresAt] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, string, string | null, LinkAction, number];
    claims = { orgId, incidentId, recipientId, action, expiresAt };
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (!(LINK_ACTIONS as readonly string[]).includes(claims.action)) return { ok: false, reason: 'invalid' };
  if (now >= claims.expiresAt) return { ok: false, reason: 'expired', claims };
  return { ok: true, claims };
}

export const linkHash = (token: string): string => createHash('sha256').update(token).digest('hex');
