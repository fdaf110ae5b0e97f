import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import { iso, isoOrNull, type Clock } from '../../lib/clock.ts';
import { notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { CalendarFeedsRepo, FeedKind } from './calendar-feeds-repo.ts';
import type { IssuedFeed, MyOnCall } from './calendar-feeds-schemas.ts';
import { calendar, eventUid } from './ical-fns.ts';
import { myShifts } from './my-oncall-fns.ts';
import { DAY_MS } from './rotation-fns.ts';
import { shiftsBetween } from './schedules-fns.ts';
import type { SchedulesRepo } from './schedules-repo.ts';
import type { SchedulesService } from './schedules-service.ts';

/** The feed's window: a week back, two months ahead (as the schedule's own `.ics` with its API key). */
const FEED_BACK_MS = 7 * DAY_MS;
const FEED_AHEAD_MS = 60 * DAY_MS;
/** "My on-call" looks 30 days ahead, and a week further to see who follows the last shift. */
const AHEAD_MS = 30 * DAY_MS;
const HANDOFF_REACH_MS = 7 * DAY_MS;
const MAX_MY_SHIFTS = 20;
/** A fetch is noted at most once a minute: calendar apps poll, and a fetch should not always write. */
const USE_RESOLUTION_MS = 60_000;

const TOKEN_PREFIX = 'afcal_';
const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Secret calendar feed URLs and "my on-call" (docs/paging.md, "Calendar feeds and my on-call"). A feed URL
 * carries a random token (256 bits) that calendar apps send without any header; only its SHA-256 is kept, found
 * by that hash. A member's feed holds their own shifts in every schedule; a schedule's, all its shifts. Issuing
 * a feed again replaces its token; revoking deletes it.
 */
export function calendarFeedsService(deps: {
  store: Store;
  repo: CalendarFeedsRepo;
  schedulesRepo: SchedulesRepo;
  schedules: Pick<SchedulesService, 'rotaOf' | 'calendar'>;
  audit: AuditService;
  clock: Clock;
  baseUrl: string;
}) {
  const { store, repo, schedulesRepo, schedules, audit, clock } = deps;

  /** The final shifts of every schedule of the organization over [from, to), with their schedule. */
  async function shiftsOf(orgId: string, from: number, to: number) {
    const rows = await schedulesRepo.all(store.db, orgId);
    return rows.map((row) => ({ row, shifts: shiftsBetween(schedules.rotaOf(row), from, to) }));
  }

  async function subjectExists(db: Kysely<DB>, orgId: string, kind: FeedKind, subjectId: string): Promise<boolean> {
    if (kind === 'schedule') return (await schedulesRepo.get(db, orgId, subjectId)) !== undefined;
    return (await schedulesRepo.users(db, orgId, [subjectId])).length === 1;
  }

  return {
    async status(orgId: string, kind: FeedKind, subjectId: string) {
      if (!(await subjectExists(store.db, orgId, kind, subjectId))) throw notFound(kind === 'schedule' ? 'Schedule' : 'Member');
      const row = await repo.get(store.db, orgId, kind, subjectId);
      return { active: row !== undefined, createdAt: isoOrNull(row?.created_at ?? null), lastUsedAt: isoOrNull(row?.last_used_at ?? null) };
    },

    /** A new feed URL for the subject, shown this once; an earlier one stops working. */
    async issue(orgId: string, actor: Actor, kind: FeedKind, subjectId: string): Promise<IssuedFeed> {
      const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const at = clock.now();
      await store.db.transaction().execute(async (trx) => {
        if (!(await subjectExists(trx, orgId, kind, subjectId))) throw notFound(kind === 'schedule' ? 'Schedule' : 'Member');
        const replaced = (await repo.get(trx, orgId, kind, subjectId)) !== undefined;
        await repo.put(trx, { id: newId('cal'), org_id: orgId, kind, subject_id: subjectId, token_hash: hashOf(token), created_at: at, last_used_at: null });
        await audit.record(trx, { orgId, action: replaced ? 'calendar_feed.rotated' : 'calendar_feed.created', actor, target: { type: kind === 'schedule' ? 'schedule' : 'user', id: subjectId }, metadata: { kind } });
      });
      const url = `${deps.baseUrl}/api/calendar/${token}.ics`;
      return { url, webcalUrl: url.replace(/^https?:/, 'webcal:'), createdAt: iso(at) };
    },

    async revoke(orgId: string, actor: Actor, kind: FeedKind, subjectId: string): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, orgId, kind, subjectId))) throw notFound('Calendar feed');
        await audit.record(trx, { orgId, action: 'calendar_feed.revoked', actor, target: { type: kind === 'schedule' ? 'schedule' : 'user', id: subjectId }, metadata: { kind } });
      });
    },

    /** The feed a token opens, as iCalendar text; null for an unknown, revoked or replaced token, or a subject gone. */
    async render(token: string): Promise<string | null> {
      if (!token.startsWith(TOKEN_PREFIX) || token.length > 100) return null;
      const feed = await repo.byHash(store.db, hashOf(token));
      if (!feed || !(await subjectExists(store.db, feed.org_id, feed.kind as FeedKind, feed.subject_id))) return null;
      const now = clock.now();
      if (feed.last_used_at === null || now - Number(feed.last_used_at) >= USE_RESOLUTION_MS) await repo.used(store.db, feed.id, now);
      if (feed.kind === 'schedule') return schedules.calendar(feed.org_id, feed.subject_id, {});
      const [person] = await schedulesRepo.users(store.db, feed.org_id, [feed.subject_id]);
      const found = await shiftsOf(feed.org_id, now - FEED_BACK_MS, now + FEED_AHEAD_MS);
      return calendar({
        name: `On call: ${person?.name ?? 'me'}`,
        timezone: 'UTC',
        stamp: now,
        events: found.flatMap(({ row, shifts }) => shifts.filter((sh) => sh.userId === feed.subject_id).map((sh) => ({
          uid: eventUid(['member', row.id, sh.userId, String(sh.startsAt), sh.source, String(sh.layer)]),
          startsAt: sh.startsAt,
          endsAt: sh.endsAt,
          summary: `On call: ${row.name}`,
          description: `${person?.name ?? 'You'}, on call in ${row.name}${sh.source === 'override' ? ' (override)' : ''}`,
        }))),
      });
    },

    /** The member's shifts now and in the next 30 days, each with who takes over at its end. */
    async myOnCall(orgId: string, userId: string): Promise<MyOnCall> {
      const now = clock.now();
      const found = await shiftsOf(orgId, now, now + AHEAD_MS + HANDOFF_REACH_MS);
      const mine = found.flatMap(({ row, shifts }) => myShifts(shifts, userId, now)
        .filter((sh) => sh.startsAt < now + AHEAD_MS)
        .map((sh) => ({ row, sh })))
        .sort((a, b) => Number(b.sh.current) - Number(a.sh.current) || a.sh.startsAt - b.sh.startsAt)
        .slice(0, MAX_MY_SHIFTS);
      const people = new Map((await schedulesRepo.users(store.db, orgId, mine.flatMap(({ sh }) => (sh.after.userId ? [sh.after.userId] : []))))
        .map((u) => [u.id, u]));
      return {
        shifts: mine.map(({ row, sh }) => ({
          scheduleId: row.id,
          scheduleName: row.name,
          timezone: row.timezone,
          startsAt: iso(sh.startsAt),
          endsAt: iso(sh.endsAt),
          current: sh.current,
          next: { user: sh.after.userId ? (people.get(sh.after.userId) ?? null) : null, startsAt: iso(sh.after.startsAt) },
        })),
      };
    },

    /** A removed member's feed goes with them. */
    async forgetMember(db: Kysely<DB>, orgId: string, userId: string): Promise<void> {
      await repo.remove(db, orgId, 'member', userId);
    },
  };
}
export type CalendarFeedsService = ReturnType<typeof calendarFeedsService>;
