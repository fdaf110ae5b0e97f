import type { Kysely } from 'kysely';
import { inTransaction, type Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { AllowList } from '../../infra/outbound.ts';
import type { Actor } from '../../lib/actor.ts';
import { iso, type Clock } from '../../lib/clock.ts';
import { AppError, notFound, type ErrorDetail } from '../../lib/errors.ts';
import { orderedId } from '../../lib/ids.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { ChannelDeps, ChannelTarget } from '../notifications/channels/channel.ts';
import type { Delivery, Notification } from '../notifications/notifications-schemas.ts';
import type { NoticeText } from '../notifications/notifications-service.ts';
import { channelOf } from '../notifications/channels/registry.ts';
import { keepSecrets, maskTarget, schemaProblems, targetProblems } from '../notifications/channels/target-fns.ts';
import { checkCode, codeHash, codeNotice, LINK_TTL_MS, linkCode, mayResend, newCode, planOf, ruleProblems, VERIFY, type ContactStep } from './contacts-fns.ts';
import { testNotice } from '../notifications/notifications-fns.ts';
import type { ContactMethodRow, ContactsRepo } from './contacts-repo.ts';
import {
  MAX_METHODS, type ContactMethod, type ContactType, type CreateContactMethodBody, type NotificationRule, type NotificationRulesBody, type Target,
  type UpdateContactMethodBody,
} from './contacts-schemas.ts';

const invalid = (errors: ErrorDetail[]): AppError => new AppError('VALIDATION_ERROR', 'Request validation failed', errors);

/**
 * A member's own contact methods and notification rules, and the plan that pages them (`planFor`, for the
 * escalation engine). Every operation names the organization and the member.
 */
export function contactsService(deps: {
  store: Store; repo: ContactsRepo; audit: AuditService; clock: Clock; outboundAllow: AllowList; channels: ChannelDeps;
  /** An organization's set-up of a channel (its bot's name, for the link instructions); null when none. */
  settingsOf: (orgId: string, type: ContactType) => Promise<ChannelTarget | null>;
  /** Sends a notice (a test page, a verification code) to a target now and says how it went (the notifications module). */
  sendNow: (orgId: string, delivery: Delivery, notice: NoticeText, who: { source: 'test' | 'verification'; recipientId: string; name: string }) => Promise<Notification>;
}) {
  const { store, repo, audit, clock, outboundAllow } = deps;
  const lock = store.dialect === 'postgres';

  const targetOf = (r: ContactMethodRow): Target => store.readJson<Target>(r.target);
  const toMethod = (r: ContactMethodRow): ContactMethod => ({
    id: r.id,
    type: r.type as ContactType,
    label: r.label,
    target: maskTarget(channelOf(r.type as ContactType), targetOf(r)),
    verified: verifiedOf(r),
    createdAt: iso(Number(r.created_at)),
    updatedAt: iso(Number(r.updated_at)),
  }) as ContactMethod;

  /** 404 unless the member is in the organization; in a change's transaction (`db`), their row stays locked until it ends. */
  async function member(db: Kysely<DB>, orgId: string, userId: string): Promise<void> {
    if (!(await repo.member(db, orgId, userId, lock && db.isTransaction))) throw notFound('User');
  }

  /** The target to store, or 400 naming each problem (a channel that cannot send now is refused too). */
  function checkedTarget(type: ContactType, target: Target, stored: Target | null): Target {
    const channel = channelOf(type);
    const off = channel.unavailable?.(deps.channels);
    if (off) throw invalid([{ path: '/type', message: off }]);
    const problems = targetProblems(channel, target, outboundAllow);
    if (problems.length > 0) throw invalid(problems);
    // A member edits their own method: its stored secret stays with it, wherever they point it.
    const kept = keepSecrets(channel, target, stored === null ? [] : [stored], '/target', true);
    if (!kept.ok) throw invalid(kept.errors);
    return kept.target;
  }

  /** Whether a method may page: always, unless its channel confirms targets first and this one is not confirmed yet. */
  const verifiedOf = (r: ContactMethodRow): boolean => channelOf(r.type as ContactType).verification !== 'code' || r.verified_at !== null;

  async function found(db: Kysely<DB>, orgId: string, userId: string, id: string): Promise<ContactMethodRow> {
    const row = await repo.get(db, orgId, userId, id);
    if (!row) throw notFound('Contact method');
    return row;
  }

  return {
    /** A member's methods in the order they were added; 404 when there is no such member. */
    async list(orgId: string, userId: string): Promise<ContactMethod[]> {
      await member(store.db, orgId, userId);
      return (await repo.list(store.db, orgId, userId)).map(toMethod);
    },

    get: async (orgId: string, userId: string, id: string): Promise<ContactMethod> => toMethod(await found(store.db, orgId, userId, id)),

    async create(orgId: string, actor: Actor, userId: string, input: CreateContactMethodBody, db: Kysely<DB> = store.db): Promise<ContactMethod> {
      const target = checkedTarget(input.type, input.target, null);
      const now = clock.now();
      const row: ContactMethodRow = {
        id: orderedId('cm', now),
        org_id: orgId,
        user_id: userId,
        type: input.type,
        label: input.label ?? channelOf(input.type).name(target).slice(0, 100),
        target: JSON.stringify(target),
        created_at: now,
        updated_at: now,
        verified_at: null, verify_code_hash: null, verify_expires_at: null, verify_attempts: 0, verify_sends: 0, verify_window_at: null,
      };
      await inTransaction(db, async (trx) => {
        await member(trx, orgId, userId);
        if ((await repo.count(trx, orgId, userId)) >= MAX_METHODS) {
          throw new AppError('CONFLICT', `You already have ${MAX_METHODS} contact methods, the most a member may have; delete one first`);
        }
        await repo.insert(trx, row);
        await audit.record(trx, { orgId, action: 'contact_method.created', actor, target: { type: 'contact_method', id: row.id }, metadata: { type: row.type, label: row.label } });
      });
      return toMethod(row);
    },

    /** Changes the label or the whole target (of the method's own type; a masked secret keeps the stored one). */
    async update(orgId: string, actor: Actor, userId: string, id: string, input: UpdateContactMethodBody, db: Kysely<DB> = store.db): Promise<ContactMethod> {
      const row = await inTransaction(db, async (trx) => {
        const before = await found(trx, orgId, userId, id);
        const type = before.type as ContactType;
        let target: Target | undefined;
        if (input.target !== undefined) {
          const misfit = schemaProblems(channelOf(type), input.target, '/target');
          if (misfit.length > 0) throw invalid([{ path: '/target', message: `must be a ${type} target (the type cannot change: add a new method instead)` }, ...misfit]);
          target = checkedTarget(type, input.target, targetOf(before));
        }
        // Another number is another thing to confirm.
        const moved = target !== undefined && JSON.stringify(target) !== JSON.stringify(targetOf(before));
        const updated = await repo.update(trx, orgId, userId, id, {
          ...(input.label !== undefined && { label: input.label }),
          ...(target !== undefined && { target: JSON.stringify(target) }),
          ...(moved && { verified_at: null, verify_code_hash: null, verify_expires_at: null, verify_attempts: 0 }),
          updated_at: clock.now(),
        });
        if (!updated) throw notFound('Contact method');
        await audit.record(trx, { orgId, action: 'contact_method.updated', actor, target: { type: 'contact_method', id }, metadata: { changed: Object.keys(input) } });
        return updated;
      });
      return toMethod(row);
    },

    /**
     * Sends a clearly marked test page to one of the member's methods now; the delivery as it went (sent, or
     * the error in words). A method whose channel confirms its targets first is tested once confirmed.
     */
    async test(orgId: string, actor: Actor, userId: string, id: string): Promise<Notification> {
      const row = await found(store.db, orgId, userId, id);
      if (!verifiedOf(row)) throw new AppError('CONFLICT', 'Confirm this method first: send a code to it and enter the code');
      const result = await deps.sendNow(orgId, { channel: row.type as ContactType, target: targetOf(row) }, testNotice(row.label, clock.now()), { source: 'test', recipientId: userId, name: row.label });
      await audit.record(store.db, { orgId, action: 'contact_method.tested', actor, target: { type: 'contact_method', id }, metadata: { status: result.status } });
      return result;
    },

    /**
     * Sends a new code to a method whose channel confirms its targets (an SMS to the number, or a call that
     * reads it): at most five an hour per method (429 beyond); a new code replaces the last. The delivery as it went.
     */
    async sendCode(orgId: string, actor: Actor, userId: string, id: string): Promise<Notification> {
      const row = await found(store.db, orgId, userId, id);
      if (channelOf(row.type as ContactType).verification !== 'code') throw new AppError('CONFLICT', 'This method needs no code');
      if (row.verified_at !== null) throw new AppError('CONFLICT', 'This method is confirmed already');
      const now = clock.now();
      const allowed = mayResend(row, now);
      if (!allowed.ok) throw new AppError('RATE_LIMITED', `At most ${VERIFY.maxSends} codes an hour are sent to a method; try again later`, null, Math.ceil(allowed.retryAfterMs / 1000));
      const code = newCode();
      await repo.update(store.db, orgId, userId, id, {
        verify_code_hash: codeHash(id, code), verify_expires_at: now + VERIFY.codeTtlMs, verify_attempts: 0, verify_sends: allowed.sends, verify_window_at: allowed.windowAt,
      });
      const result = await deps.sendNow(orgId, { channel: row.type as ContactType, target: targetOf(row) }, codeNotice(code), { source: 'verification', recipientId: userId, name: row.label });
      await audit.record(store.db, { orgId, action: 'contact_method.code_sent', actor, target: { type: 'contact_method', id }, metadata: { status: result.status } });
      return result;
    },

    /** Confirms a method with the code sent to it: right, it pages from now on; wrong, expired or guessed too often, 400 saying which. */
    async verify(orgId: string, actor: Actor, userId: string, id: string, code: string): Promise<ContactMethod> {
      return inTransaction(store.db, async (trx) => {
        await member(trx, orgId, userId);
        const row = await found(trx, orgId, userId, id);
        if (row.verified_at !== null) return toMethod(row);
        const now = clock.now();
        const result = checkCode(id, row, code, now);
        if (result !== 'right') {
          if (result === 'wrong') await repo.update(trx, orgId, userId, id, { verify_attempts: row.verify_attempts + 1 });
          const why = { wrong: 'is not the code sent', expired: 'has expired: send a new one', none: 'was never sent: send one first', locked: 'was guessed wrong too often: send a new one' }[result];
          await audit.record(trx, { orgId, action: 'contact_method.verify_failed', actor, target: { type: 'contact_method', id }, metadata: { result } });
          throw invalid([{ path: '/code', message: why }]);
        }
        const updated = await repo.update(trx, orgId, userId, id, { verified_at: now, verify_code_hash: null, verify_expires_at: null, verify_attempts: 0 });
        await audit.record(trx, { orgId, action: 'contact_method.verified', actor, target: { type: 'contact_method', id }, metadata: { type: row.type } });
        return toMethod(updated as ContactMethodRow);
      });
    },

    /**
     * A one-time code a member sends to a channel's bot to link their account there (Telegram): valid 15
     * minutes; the bot's answer makes the contact method (`linkFromChannel`).
     */
    async requestLink(orgId: string, actor: Actor, userId: string, type: ContactType): Promise<{ code: string; instructions: string; expiresAt: string }> {
      const channel = channelOf(type);
      if (!channel.linking) throw invalid([{ path: '/type', message: 'is not linked from a chat: add it with its target instead' }]);
      const settings = await deps.settingsOf(orgId, type);
      if (channel.settings && !settings) throw invalid([{ path: '/type', message: `${channel.label} is not set up for this organization yet (Settings, Channels)` }]);
      const code = linkCode();
      const now = clock.now();
      await inTransaction(store.db, async (trx) => {
        await member(trx, orgId, userId);
        await repo.addLink(trx, { code_hash: codeHash(`${orgId}:${type}`, code), org_id: orgId, user_id: userId, channel: type, expires_at: now + LINK_TTL_MS });
        await audit.record(trx, { orgId, action: 'contact_method.link_requested', actor, target: { type: 'user', id: userId }, metadata: { type } });
      });
      return { code, instructions: channel.linking.instructions(code, settings), expiresAt: iso(now + LINK_TTL_MS) };
    },

    /**
     * A chat account linked with a member's one-time code (the channel's bot received it): their contact
     * method, confirmed, and who the chat account is. Null when the code is unknown, used or expired.
     */
    async linkFromChannel(orgId: string, type: ContactType, code: string, target: ChannelTarget, externalId: string): Promise<{ email: string } | null> {
      const now = clock.now();
      return inTransaction(store.db, async (trx) => {
        const link = await repo.takeLink(trx, orgId, type, codeHash(`${orgId}:${type}`, code.trim().toUpperCase()), now);
        if (!link) return null;
        const account = await repo.member(trx, orgId, link.user_id, lock);
        if (!account) return null;
        const existing = (await repo.list(trx, orgId, link.user_id)).find((m) => m.type === type && JSON.stringify(targetOf(m)) === JSON.stringify(target));
        if (!existing) {
          if ((await repo.count(trx, orgId, link.user_id)) >= MAX_METHODS) return null;
          await repo.insert(trx, {
            id: orderedId('cm', now), org_id: orgId, user_id: link.user_id, type, label: channelOf(type).name(target).slice(0, 100), target: JSON.stringify(target),
            created_at: now, updated_at: now, verified_at: now, verify_code_hash: null, verify_expires_at: null, verify_attempts: 0, verify_sends: 0, verify_window_at: null,
          });
        }
        await repo.setIdentity(trx, { org_id: orgId, channel: type, external_id: externalId, user_id: link.user_id, created_at: now });
        await audit.record(trx, { orgId, action: 'contact_method.linked', actor: { type: 'user', id: link.user_id }, target: { type: 'user', id: link.user_id }, metadata: { type } });
        return { email: account.email };
      });
    },

    /** The member with this account address, for a chat that knows its user's email (Slack); null when none. */
    memberByEmail: async (orgId: string, email: string): Promise<string | null> => (await repo.byEmail(store.db, orgId, email))?.id ?? null,

    /** The member a linked chat account is; null when none. */
    memberOf: async (orgId: string, type: ContactType, externalId: string): Promise<string | null> => (await repo.identity(store.db, orgId, type, externalId))?.user_id ?? null,

    /** Deletes a method and the rules that name it. */
    async remove(orgId: string, actor: Actor, userId: string, id: string): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        await member(trx, orgId, userId);
        const row = await repo.remove(trx, orgId, userId, id);
        if (!row) throw notFound('Contact method');
        await audit.record(trx, { orgId, action: 'contact_method.deleted', actor, target: { type: 'contact_method', id }, metadata: { type: row.type, label: row.label } });
      });
    },

    async rules(orgId: string, userId: string): Promise<NotificationRule[]> {
      return (await repo.rules(store.db, orgId, userId)).map((r) => ({ contactMethodId: r.contact_method_id, afterMinutes: Number(r.after_minutes) }));
    },

    /** Replaces the whole list; every rule must name one of the member's methods (400 naming the rule otherwise). */
    async replaceRules(orgId: string, actor: Actor, userId: string, input: NotificationRulesBody, db: Kysely<DB> = store.db): Promise<NotificationRule[]> {
      await inTransaction(db, async (trx) => {
        await member(trx, orgId, userId);
        const ids = new Set((await repo.list(trx, orgId, userId)).map((m) => m.id));
        const problems = ruleProblems(input.rules, ids);
        if (problems.length > 0) throw invalid(problems);
        await repo.replaceRules(trx, orgId, userId, input.rules.map((r, position) => ({
          org_id: orgId, user_id: userId, position, contact_method_id: r.contactMethodId, after_minutes: r.afterMinutes,
        })));
        await audit.record(trx, { orgId, action: 'notification_rules.replaced', actor, target: { type: 'user', id: userId }, metadata: { rules: input.rules.length } });
      });
      return input.rules;
    },

    /**
     * How to page a member (see `planOf`), targets with their secrets: for the escalation engine, never for a
     * response. A member who is not (or no longer) in the organization has no plan.
     */
    async planFor(orgId: string, userId: string): Promise<ContactStep[]> {
      const account = await repo.member(store.db, orgId, userId, false);
      if (!account) return [];
      const [methods, rules] = await Promise.all([repo.list(store.db, orgId, userId), repo.rules(store.db, orgId, userId)]);
      // A number nobody confirmed is never paged.
      return planOf(
        account.email,
        methods.filter(verifiedOf).map((m) => ({ id: m.id, type: m.type as ContactType, target: targetOf(m) })),
        rules.map((r) => ({ contactMethodId: r.contact_method_id, afterMinutes: Number(r.after_minutes) })),
      );
    },
  };
}
export type ContactsService = ReturnType<typeof contactsService>;
