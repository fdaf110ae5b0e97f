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
import type { Passwords } from '../users/passwords.ts';
import type { UsersService } from '../users/users-service.ts';
import { deviceCookieFor, deviceOf, hashToken, newToken, scopesOfRole, sessionExpiry, type SessionLimits } from './auth-fns.ts';
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
  /** A new device cookie value: this browser is now known to the account. */
  device: string;
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
  signInFailures: { perAddress: RateLimiter; perAccountAddress: RateLimiter; perAccount: RateLimiter; perDevice: RateLimiter };
  /** Signs device cookies. */
  deviceSecret: string;
  passwords: Passwords;
}) {
  const { store, repo, orgs, users, audit, clock, log, sessionLimits, signInFailures, deviceSecret, passwords } = deps;

  // Unknown emails are checked against this hash, so a wrong email costs the same time as a wrong password.
  let dummyHash: Promise<string> | undefined;
  const verifyNobody = async (password: string): Promise<void> => {
    dummyHash ??= passwords.hash(newToken());
    await passwords.verify(await dummyHash, password);
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
    return {
      sessionId, device: deviceCookieFor(deviceSecret, user.email.toLowerCase()),
      view: viewOf({ orgId: org.id, orgName: org.name, user, csrfToken: row.csrf_token, createdAt: now, lastSeenAt: now }),
    };
  }

  const throttled = (r: LimitResult): AppError =>
    new AppError('RATE_LIMITED', `Too many failed sign-ins; retry in ${r.resetSeconds} s`, null, r.resetSeconds);

  /**
   * Takes one attempt from each budget before a secret is checked. Each take is one atomic increment (in Redis
   * when configured, so every instance shares it), so parallel attempts cannot all pass a budget: once it is
   * spent, the next one is 429 at once, right password or not, and checks nothing. Returns what gives the
   * attempt back, for when the secret turns out right (only failures count).
   */
  async function takeAttempt(budgets: ReadonlyArray<readonly [RateLimiter, string]>): Promise<() => Promise<void>> {
    const countedAt = clock.now();
    const counts = await Promise.all(budgets.map(([limiter, key]) => limiter.consume(key)));
    // To the windows the attempt was taken from: a password check can outlast a window.
    const giveBack = async () => {
      await Promise.all(budgets.map(([limiter, key]) => limiter.refund(key, countedAt)));
    };
    const over = counts.filter((c) => !c.allowed).sort((a, b) => b.resetSeconds - a.resetSeconds)[0];
    if (over) {
      // Nothing was checked: the refused attempt leaves every budget as it was.
      await giveBack();
      throw throttled(over);
    }
    return giveBack;
  }

  /**
   * The budgets a sign-in for `account` takes from. From a device the person signed in from before (a valid
   * device cookie), only that device's: failures elsewhere never lock them out. From any other device, its
   * address's (all accounts), the (account, address) pair's and the account's: an attacker at one address
   * spends only the pair's budget, and locking out an account's unknown devices takes several addresses.
   */
  const signInBudgets = (account: string, ip: string, deviceCookie: string | undefined): Array<readonly [RateLimiter, string]> => {
    const device = deviceOf(deviceSecret, account, deviceCookie);
    if (device !== null) return [[signInFailures.perDevice, device]];
    return [[signInFailures.perAddress, ip], [signInFailures.perAccountAddress, `${account}\n${ip}`], [signInFailures.perAccount, account]];
  };

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
     * Email and password → a new session and a new device cookie. Each attempt is taken from the budgets of
     * `signInBudgets` before the password is checked, and given back when it is right; a spent budget refuses
     * further tries, right or wrong, until its window ends.
     */
    async signIn(input: LoginBody, ip: string, deviceCookie: string | undefined): Promise<SignedIn> {
      const email = input.email.trim().toLowerCase();
      const giveBack = await takeAttempt(signInBudgets(email, ip, deviceCookie));
      const candidates = (await repo.usersByEmail(store.db, email))
        .filter((u) => input.organizationId === undefined || u.org_id === input.organizationId);
      if (candidates.length === 0) await verifyNobody(input.password);
      const matched: typeof candidates = [];
      for (const u of candidates) if (await passwords.verify(u.password_hash as string, input.password)) matched.push(u);

      if (matched.length === 0) {
        for (const u of candidates) {
          await audit.record(store.db, { orgId: u.org_id, action: 'auth.sign_in_failed', actor: { type: 'user', id: null }, target: { type: 'user', id: u.id }, ip, metadata: { email } });
        }
        if (candidates.length === 0) log.info({ ip }, 'sign-in failed for an unknown email');
        throw new AppError('UNAUTHORIZED', WRONG_CREDENTIALS);
      }
      await giveBack();
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
      const giveBack = await takeAttempt([[signInFailures.perAddress, ip]]);
      try {
        const signedIn = await inTransaction(store.db, async (trx) => {
          const { orgId, userId } = await users.claimLink(trx, input.token);
          await users.setPassword(trx, orgId, userId, input.password, null);
          const m = await repo.member(trx, orgId, userId);
          if (!m) throw new AppError('NOT_FOUND', 'This link is not valid; check that it was copied whole');
          await audit.record(trx, { orgId, action: 'user.password_set', actor: { type: 'user', id: userId }, target: { type: 'user', id: userId }, ip });
          return startSession(trx, m, { id: orgId, name: m.org_name }, ip);
        });
        await giveBack();
        return signedIn;
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'NOT_FOUND')) await giveBack();
        throw err;
      }
    },

    /** A member's own password change: the current one is checked (and throttled like a sign-in); their other sessions end. */
    async changePassword(session: { orgId: string; userId: string; idHash: string }, input: ChangePasswordBody, ip: string): Promise<void> {
      const me = await users.get(session.orgId, session.userId);
      const giveBack = await takeAttempt([[signInFailures.perAddress, ip], [signInFailures.perAccount, me.email.toLowerCase()]]);
      const hash = await users.passwordHash(session.orgId, session.userId);
      if (hash === null || !(await passwords.verify(hash, input.currentPassword))) {
        throw new AppError('VALIDATION_ERROR', 'The current password is wrong', [{ path: '/currentPassword', message: 'is not your current password' }]);
      }
      await giveBack();
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
