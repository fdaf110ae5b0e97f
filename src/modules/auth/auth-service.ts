import argon2 from 'argon2';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { inTransaction, type Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { RateLimiter, LimitResult } from '../../infra/rate-limit.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { OrgsService } from '../orgs/orgs-service.ts';
import type { ChangePasswordBody, Role } from '../users/users-schemas.ts';
import type { UsersService } from '../users/users-service.ts';
import { hashToken, newToken, scopesOfRole, sessionExpiry, type SessionLimits } from './auth-fns.ts';
import type { AuthRepo } from './auth-repo.ts';
import type { LoginBody, SessionView, SetPasswordBody, SetupBody } from './auth-schemas.ts';

/** A session in use: what the REST checks need, and what `GET /auth/session` shows. */
export interface ActiveSession {
  idHash: string;
  orgId: string;
  userId: string;
  scopes: ReadonlySet<string>;
  csrfToken: string;
  view: SessionView;
}

export interface SignedIn {
  /** The cookie value; only its hash is stored. */
  sessionId: string;
  view: SessionView;
}

/** A sliding session is written back at most this often, not on every request. */
const TOUCH_EVERY_MS = 60_000;

const WRONG_CREDENTIALS = 'Wrong email or password';

interface SessionFacts {
  orgId: string;
  orgName: string;
  user: { id: string; email: string; name: string; role: string };
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

export function authService(deps: {
  store: Store;
  repo: AuthRepo;
  orgs: OrgsService;
  users: UsersService;
  audit: AuditService;
  clock: Clock;
  log: Logger;
  sessionLimits: SessionLimits;
  signInFailures: { perAddress: RateLimiter; perAccount: RateLimiter };
}) {
  const { store, repo, orgs, users, audit, clock, log, sessionLimits, signInFailures } = deps;

  // Unknown emails are checked against this hash, so a wrong email costs the same time as a wrong password.
  let dummyHash: Promise<string> | undefined;
  const verifyNobody = async (password: string): Promise<void> => {
    dummyHash ??= argon2.hash(newToken(), { type: argon2.argon2id });
    await argon2.verify(await dummyHash, password);
  };

  const viewOf = (s: SessionFacts): SessionView => {
    const role = s.user.role as Role;
    return {
      user: { id: s.user.id, email: s.user.email, name: s.user.name, role },
      organization: { id: s.orgId, name: s.orgName },
      scopes: [...scopesOfRole(role)],
      csrfToken: s.csrfToken,
      expiresAt: iso(sessionExpiry({ createdAt: s.createdAt, lastSeenAt: s.lastSeenAt }, sessionLimits)),
    };
  };

  /** A new session (a new id at every sign-in, so an id planted before sign-in is worthless). */
  async function startSession(db: Kysely<DB>, user: SessionFacts['user'], org: { id: string; name: string }, ip: string): Promise<SignedIn> {
    const now = clock.now();
    const sessionId = newToken();
    const row = { id_hash: hashToken(sessionId), org_id: org.id, user_id: user.id, csrf_token: newToken(), created_at: now, last_seen_at: now };
    await repo.purgeExpired(db, user.id, now - sessionLimits.idleMs, now - sessionLimits.absoluteMs);
    await repo.insert(db, row);
    await audit.record(db, { orgId: org.id, action: 'auth.sign_in', actor: { type: 'user', id: user.id }, target: { type: 'user', id: user.id }, ip });
    return { sessionId, view: viewOf({ orgId: org.id, orgName: org.name, user, csrfToken: row.csrf_token, createdAt: now, lastSeenAt: now }) };
  }

  const throttled = (r: LimitResult): AppError =>
    new AppError('RATE_LIMITED', `Too many failed sign-ins; retry in ${r.resetSeconds} s`, null, r.resetSeconds);

  /** Refuses at once while either budget of failed attempts is spent, right or wrong. */
  async function checkThrottle(ip: string, account: string | null): Promise<void> {
    const pairs: Array<[RateLimiter, string]> = [[signInFailures.perAddress, ip], ...(account === null ? [] : [[signInFailures.perAccount, account] as [RateLimiter, string]])];
    for (const [limiter, key] of pairs) {
      const state = await limiter.peek(key);
      if (state.remaining === 0) throw throttled(state);
    }
  }

  return {
    /** The session behind a cookie value, or null when it is unknown, expired, signed out or its user removed. */
    async authenticate(sessionId: string | undefined): Promise<ActiveSession | null> {
      if (!sessionId) return null;
      const idHash = hashToken(sessionId);
      const row = await repo.find(store.db, idHash);
      if (!row) return null;
      const now = clock.now();
      let lastSeenAt = row.last_seen_at;
      if (now >= sessionExpiry({ createdAt: row.created_at, lastSeenAt }, sessionLimits)) {
        await repo.remove(store.db, idHash);
        return null;
      }
      if (now - lastSeenAt >= TOUCH_EVERY_MS) {
        await repo.touch(store.db, idHash, now);
        lastSeenAt = now;
      }
      const view = viewOf({
        orgId: row.org_id, orgName: row.org_name, csrfToken: row.csrf_token, createdAt: row.created_at, lastSeenAt,
        user: { id: row.user_id, email: row.email, name: row.name, role: row.role },
      });
      return { idHash, orgId: row.org_id, userId: row.user_id, scopes: new Set(view.scopes), csrfToken: row.csrf_token, view };
    },

    /**
     * The scopes of a session still in use, or null (unknown, expired, signed out, member removed). Reads only:
     * an open event stream re-checks its session with this, and must not keep an idle session alive.
     */
    async scopesOf(sessionId: string): Promise<ReadonlySet<string> | null> {
      const row = await repo.find(store.db, hashToken(sessionId));
      if (!row || clock.now() >= sessionExpiry({ createdAt: row.created_at, lastSeenAt: row.last_seen_at }, sessionLimits)) return null;
      return new Set(scopesOfRole(row.role as Role));
    },

    /**
     * Email and password → a new session. Failures count per address and per account (email), and either
     * budget spent refuses further tries, right or wrong, until its window ends.
     */
    async signIn(input: LoginBody, ip: string): Promise<SignedIn> {
      const email = input.email.trim().toLowerCase();
      await checkThrottle(ip, email);
      const candidates = (await repo.usersByEmail(store.db, email))
        .filter((u) => input.organizationId === undefined || u.org_id === input.organizationId);
      if (candidates.length === 0) await verifyNobody(input.password);
      const matched: typeof candidates = [];
      for (const u of candidates) if (await argon2.verify(u.password_hash as string, input.password)) matched.push(u);

      if (matched.length === 0) {
        await signInFailures.perAddress.consume(ip);
        await signInFailures.perAccount.consume(email);
        for (const u of candidates) {
          await audit.record(store.db, { orgId: u.org_id, action: 'auth.sign_in_failed', actor: { type: 'user', id: null }, target: { type: 'user', id: u.id }, ip, metadata: { email } });
        }
        if (candidates.length === 0) log.info({ ip }, 'sign-in failed for an unknown email');
        throw new AppError('UNAUTHORIZED', WRONG_CREDENTIALS);
      }
      if (matched.length > 1) {
        throw new AppError('CONFLICT', 'These credentials belong to several organizations; choose one', matched.map((u) => ({
          path: '/organizationId', message: u.org_name, organizationId: u.org_id, organizationName: u.org_name,
        })));
      }
      const u = matched[0] as (typeof matched)[number];
      return inTransaction(store.db, (trx) => startSession(trx, u, { id: u.org_id, name: u.org_name }, ip));
    },

    async signOut(session: ActiveSession, ip: string): Promise<void> {
      await inTransaction(store.db, async (trx) => {
        if (!(await repo.remove(trx, session.idHash))) return;
        await audit.record(trx, { orgId: session.orgId, action: 'auth.sign_out', actor: { type: 'user', id: session.userId }, target: { type: 'user', id: session.userId }, ip });
      });
    },

    /**
     * A set-password link → the member's password, and a new session. The link works once (the claim is a
     * conditional update); wrong tokens count as failed sign-ins of the address. The member's other
     * sessions end, as after any password change.
     */
    async setPassword(input: SetPasswordBody, ip: string): Promise<SignedIn> {
      await checkThrottle(ip, null);
      try {
        return await inTransaction(store.db, async (trx) => {
          const { orgId, userId } = await users.claimLink(trx, input.token);
          await users.setPassword(trx, orgId, userId, input.password, null);
          const m = await repo.member(trx, orgId, userId);
          if (!m) throw new AppError('NOT_FOUND', 'This link is not valid; check that it was copied whole');
          await audit.record(trx, { orgId, action: 'user.password_set', actor: { type: 'user', id: userId }, target: { type: 'user', id: userId }, ip });
          return startSession(trx, m, { id: orgId, name: m.org_name }, ip);
        });
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') await signInFailures.perAddress.consume(ip);
        throw err;
      }
    },

    /** A member's own password change: the current one is checked (and throttled like a sign-in); their other sessions end. */
    async changePassword(session: { orgId: string; userId: string; idHash: string }, input: ChangePasswordBody, ip: string): Promise<void> {
      const me = await users.get(session.orgId, session.userId);
      await checkThrottle(ip, me.email);
      const hash = await users.passwordHash(session.orgId, session.userId);
      if (hash === null || !(await argon2.verify(hash, input.currentPassword))) {
        await signInFailures.perAddress.consume(ip);
        await signInFailures.perAccount.consume(me.email);
        throw new AppError('VALIDATION_ERROR', 'The current password is wrong', [{ path: '/currentPassword', message: 'is not your current password' }]);
      }
      await inTransaction(store.db, async (trx) => {
        await users.setPassword(trx, session.orgId, session.userId, input.newPassword, session.idHash);
        await audit.record(trx, { orgId: session.orgId, action: 'user.password_changed', actor: { type: 'user', id: session.userId }, target: { type: 'user', id: session.userId }, ip });
      });
    },

    setupNeeded: async (): Promise<boolean> => (await orgs.count()) === 0,

    /** Issues the one-time setup token of an empty store; the caller shows it once (the server logs the link). */
    async issueSetupToken(): Promise<string> {
      const token = newToken();
      await repo.saveSetupToken(store.db, hashToken(token));
      return token;
    },

    /**
     * The first organization and its owner, signed in. Only with the setup token, only while no organization
     * exists; the token is deleted in the same transaction, so it works once even when setups race.
     */
    setup(input: SetupBody, ip: string): Promise<SignedIn> {
      return inTransaction(store.db, async (trx) => {
        const claimed = await repo.claimSetupToken(trx, hashToken(input.token));
        if (!claimed || (await orgs.count(trx)) > 0) throw new AppError('NOT_FOUND', 'This setup link is not valid or has already been used');
        const { org, owner } = await orgs.withOwner(trx, { name: input.organizationName.trim(), ownerEmail: input.email, ownerName: input.name, ownerPassword: input.password });
        await audit.record(trx, { orgId: org.id, action: 'org.setup', actor: { type: 'user', id: owner.id }, target: { type: 'org', id: org.id }, ip });
        return startSession(trx, owner, org, ip);
      });
    },
  };
}
export type AuthService = ReturnType<typeof authService>;
