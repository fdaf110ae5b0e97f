import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { inTransaction, isUniqueViolation, type Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Mailer } from '../../infra/mailer.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { AppError, conflict, invalid, notFound } from '../../lib/errors.ts';
import { errorSummary } from '../../lib/logger.ts';
import { newId } from '../../lib/ids.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AuditService } from '../audit/audit-service.ts';
import { grantRefusal, type Grantor } from '../api-keys/api-keys-fns.ts';
import { hashToken, newToken, scopesOfRole } from '../auth/auth-fns.ts';
import { messageId } from '../notifications/notifications-fns.ts';
import { isValidTimezone } from '../suppression/recurrence-fns.ts';
import { linkMail } from './users-fns.ts';
import type { Passwords } from './passwords.ts';
import type { UserRow, UsersRepo } from './users-repo.ts';
import type { CreatedUser, CreateUserBody, Role, UpdateUserBody, User } from './users-schemas.ts';

const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** How long a set-password link works. */
export const LINK_TTL_MS = 72 * 3_600_000;

export const toUser = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  name: r.name,
  role: r.role as Role,
  timezone: r.timezone,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** What else names a member and must stay valid once they are removed. */
export type MemberReferences = (db: Kysely<DB>, orgId: string, userId: string, actor: Actor, at: number) => Promise<void>;

export function usersService(deps: {
  store: Store;
  repo: UsersRepo;
  audit: AuditService;
  clock: Clock;
  cursors: CursorCodec;
  log: Logger;
  mailer: Mailer | null;
  smtpFrom: string;
  baseUrl: string;
  forgetMember: MemberReferences[];
  passwords: Passwords;
}) {
  const { store, repo, audit, clock, cursors, log, mailer, smtpFrom, baseUrl, forgetMember, passwords } = deps;

  async function found(db: Kysely<DB>, orgId: string, id: string): Promise<UserRow> {
    const row = await repo.get(db, orgId, id);
    if (!row) throw notFound('User');
    return row;
  }

  /** Making, unmaking or removing an owner is an owner's decision; an API key is never an owner. */
  async function requireOwner(db: Kysely<DB>, orgId: string, actor: Actor): Promise<void> {
    const caller = actor.type === 'user' && actor.id !== null ? await repo.get(db, orgId, actor.id) : undefined;
    if (caller?.role !== 'owner') throw new AppError('FORBIDDEN', 'Only an owner can make, unmake or remove an owner');
  }

  /**
   * A caller acts on members only within what it holds itself (`grantRefusal`): adding one with a role,
   * promoting one to it, or issuing a link that signs in as one, gives that role's scopes away; changing or
   * removing one takes them from someone who may hold more than the caller. 403 otherwise.
   */
  function requireGrantable(caller: Grantor | null, what: string, role: string): void {
    const refusal = grantRefusal(caller, { what, scopes: scopesOfRole(role as Role) });
    if (refusal) throw new AppError('FORBIDDEN', refusal);
  }

  /** Refuses a change that would leave the organization without an owner; call after `lockRoles`. */
  async function keepAnOwner(db: Kysely<DB>, orgId: string, what: string): Promise<void> {
    if ((await repo.owners(db, orgId)) <= 1) throw conflict(`Cannot ${what} the organization's last owner; make someone else owner first`);
  }

  async function mailLink(user: UserRow, url: string, expiresAt: number, actor: Actor): Promise<boolean> {
    if (!mailer) return false;
    try {
      const org = await repo.org(store.db, user.org_id);
      const inviter = actor.type === 'user' && actor.id !== null ? (await repo.get(store.db, user.org_id, actor.id))?.name ?? null : null;
      const mail = linkMail({ url, expiresAt, role: user.role, orgName: org?.name ?? 'your organization', zone: org?.timezone ?? 'UTC', inviter });
      const r = await mailer.send({ from: smtpFrom, to: [user.email], ...mail, messageId: messageId(newId('pwl'), baseUrl) });
      return r.accepted.length > 0;
    } catch (err) {
      log.warn({ orgId: user.org_id, userId: user.id, error: errorSummary(err) }, 'set-password email not sent');
      return false;
    }
  }

    /** Adds a member; `db` lets organization creation add its owner in the same transaction. */
  async function newLink(db: Kysely<DB>, row: UserRow): Promise<{ row: UserRow; token: string; expiresAt: number }> {
    const token = newToken();
    const at = clock.now();
    await repo.insertLink(db, { token_hash: hashToken(token), org_id: row.org_id, user_id: row.id, expires_at: at + LINK_TTL_MS, used_at: null, created_at: at });
    return { row, token, expiresAt: at + LINK_TTL_MS };
  }

  /** The link as shown to the admin, emailed to the member after the commit (a slow mail server holds no lock). */
  async function handOver(row: UserRow, token: string, expiresAt: number, actor: Actor): Promise<CreatedUser['setPasswordLink']> {
    const url = `${baseUrl}/set-password?token=${token}`;
    return { url, expiresAt: iso(expiresAt), emailed: await mailLink(row, url, expiresAt, actor) };
  }

  async function add(orgId: string, input: { email: string; name: string; role: Role; password?: string | undefined }, db = store.db): Promise<User> {
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email)) throw new AppError('VALIDATION_ERROR', 'Invalid email', [{ path: '/email', message: 'must be an email address' }]);
    const now = clock.now();
    const row: UserRow = {
      id: newId('usr'),
      org_id: orgId,
      email,
      name: input.name.trim() || email,
      role: input.role,
      password_hash: input.password ? await passwords.hash(input.password) : null,
      timezone: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await repo.insert(db, row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', `A user with email ${email} already exists`);
      throw err;
    }
    return toUser(row);
  }

  return {
    add,

    /** A member without a password yet, and the one-time link that lets them set it (emailed when SMTP is set). */
    async create(orgId: string, actor: Actor, input: CreateUserBody, caller: Grantor | null): Promise<CreatedUser> {
      requireGrantable(caller, `A member with the role ${input.role}`, input.role);
      const { row, token, expiresAt } = await inTransaction(store.db, async (trx) => {
        if (input.role === 'owner') await requireOwner(trx, orgId, actor);
        const created = await add(orgId, input, trx);
        await audit.record(trx, { orgId, action: 'user.created', actor, target: { type: 'user', id: created.id }, metadata: { email: created.email, role: created.role } });
        return newLink(trx, await found(trx, orgId, created.id));
      });
      return { ...toUser(row), setPasswordLink: await handOver(row, token, expiresAt, actor) };
    },

    /** A new set-password link for a member (a lost or expired one, or a forgotten password); earlier links stay usable until they expire. */
    async issueLink(orgId: string, actor: Actor, id: string, caller: Grantor | null): Promise<CreatedUser> {
      const { row, token, expiresAt } = await inTransaction(store.db, async (trx) => {
        const target = await found(trx, orgId, id);
        requireGrantable(caller, `A set-password link for a member with the role ${target.role}`, target.role);
        if (target.role === 'owner') await requireOwner(trx, orgId, actor);
        await audit.record(trx, { orgId, action: 'user.password_link_issued', actor, target: { type: 'user', id } });
        return newLink(trx, target);
      });
      return { ...toUser(row), setPasswordLink: await handOver(row, token, expiresAt, actor) };
    },

    async update(orgId: string, actor: Actor, id: string, input: UpdateUserBody, caller: Grantor | null): Promise<User> {
      if (input.timezone != null && !isValidTimezone(input.timezone)) throw invalid('/timezone', 'must be an IANA time zone such as Europe/Berlin, or null');
      const row = await inTransaction(store.db, async (trx) => {
        await repo.lockRoles(trx, orgId);
        const before = await found(trx, orgId, id);
        requireGrantable(caller, `Changing a member with the role ${before.role}`, before.role);
        if (input.role !== undefined) requireGrantable(caller, `The role ${input.role}`, input.role);
        const roleChange = input.role !== undefined && input.role !== before.role;
        if (roleChange && (before.role === 'owner' || input.role === 'owner')) await requireOwner(trx, orgId, actor);
        if (roleChange && before.role === 'owner') await keepAnOwner(trx, orgId, 'demote');
        const updated = await repo.update(trx, orgId, id, {
          ...(input.name !== undefined && { name: input.name.trim() || before.email }),
          ...(input.role !== undefined && { role: input.role }),
          ...(input.timezone !== undefined && { timezone: input.timezone }),
          updated_at: clock.now(),
        });
        const changed = Object.fromEntries(Object.keys(input).map((k) => [k, { from: before[k as keyof UserRow], to: updated?.[k as keyof UserRow] }]));
        await audit.record(trx, { orgId, action: 'user.updated', actor, target: { type: 'user', id }, metadata: changed });
        return updated as UserRow;
      });
      return toUser(row);
    },

    /** Removes a member: their sessions end at once, and nothing keeps pointing at them (see `forgetMember`). */
    async remove(orgId: string, actor: Actor, id: string, caller: Grantor | null): Promise<void> {
      await inTransaction(store.db, async (trx) => {
        await repo.lockRoles(trx, orgId);
        const row = await found(trx, orgId, id);
        requireGrantable(caller, `Removing a member with the role ${row.role}`, row.role);
        if (row.role === 'owner') {
          await requireOwner(trx, orgId, actor);
          await keepAnOwner(trx, orgId, 'remove');
        }
        const at = clock.now();
        for (const forget of forgetMember) await forget(trx, orgId, id, actor, at);
        await repo.endSessions(trx, orgId, id);
        await repo.remove(trx, orgId, id);
        await audit.record(trx, { orgId, action: 'user.deleted', actor, target: { type: 'user', id }, metadata: { email: row.email, role: row.role } });
      });
    },

    list(orgId: string, query: { limit: number; cursor?: string | undefined }): Promise<Page<User>> {
      return paginate(cursors, `${orgId}:users`, query, (after) => repo.page(store.db, orgId, query.limit, after), () => repo.count(store.db, orgId), toUser);
    },

    get: async (orgId: string, id: string): Promise<User> => toUser(await found(store.db, orgId, id)),

    /** A member's password hash, or null when they have none yet. */
    passwordHash: async (orgId: string, id: string): Promise<string | null> => (await found(store.db, orgId, id)).password_hash,

    /** Sets a password and ends the member's sessions but `keepIdHash` (the one that changed it, if any). */
    async setPassword(db: Kysely<DB>, orgId: string, id: string, password: string, keepIdHash: string | null): Promise<UserRow> {
      const updated = await repo.update(db, orgId, id, { password_hash: await passwords.hash(password), updated_at: clock.now() });
      if (!updated) throw notFound('User');
      await repo.endSessions(db, orgId, id, keepIdHash);
      return updated;
    },

    /** Uses a set-password link once: the member it was made for, or 404 saying why it no longer works. */
    async claimLink(db: Kysely<DB>, token: string): Promise<{ orgId: string; userId: string }> {
      const hash = hashToken(token);
      const claimed = await repo.claimLink(db, hash, clock.now());
      if (claimed) return { orgId: claimed.org_id, userId: claimed.user_id };
      const link = await repo.link(db, hash);
      if (link?.used_at != null) throw new AppError('NOT_FOUND', 'This link has already been used; sign in, or ask an admin to add you again');
      if (link) throw new AppError('NOT_FOUND', 'This link has expired; ask an admin for a new one');
      throw new AppError('NOT_FOUND', 'This link is not valid; check that it was copied whole');
    },
  };
}
export type UsersService = ReturnType<typeof usersService>;
