import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { inTransaction, type Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso, isoOrNull } from '../../lib/clock.ts';
import { AppError, invalid, notFound, type ErrorDetail } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { periodic } from '../../lib/periodic.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AuditService } from '../audit/audit-service.ts';
import { calendar, eventUid } from './ical-fns.ts';
import { DAY_MS, type Layer } from './rotation-fns.ts';
import { WORK_UNITS_PER_REQUEST, WorkBudget, WorkLimitReached } from '../../lib/work-budget.ts';
import {
  expansionFits, handoffMessage, handoffsBetween, onCallAt, scheduleErrors, shiftsBetween, userMentions, whoAt, withoutUser, type OnCall, type OnCallSchedule,
} from './schedules-fns.ts';
import type { ScheduleRow, SchedulesRepo, ScheduleUser } from './schedules-repo.ts';
import {
  MAX_RANGE_DAYS,
  type CreateScheduleBody, type LayerBody, type OnCallEntry, type OverrideBody, type Schedule, type SchedulePreview, type ScheduleShifts, type Shift,
  type UpdateScheduleBody,
} from './schedules-schemas.ts';

type StoredLayer = Schedule['layers'][number];
type StoredOverride = Schedule['overrides'][number];

const refused = (errors: ErrorDetail[]): AppError => new AppError('VALIDATION_ERROR', 'Schedule is invalid', errors);

/** Layers and overrides as stored (and shown): instants normalized to ISO UTC with milliseconds, defaults filled in. */
const storedLayers = (layers: LayerBody[]): StoredLayer[] => layers.map((l) => ({
  name: l.name,
  startsAt: iso(Date.parse(l.startsAt)),
  rotation: l.rotation,
  shiftHours: l.shiftHours ?? null,
  users: l.users,
  restrictions: l.restrictions ?? [],
}));
const storedOverrides = (overrides: OverrideBody[]): StoredOverride[] =>
  overrides.map((o) => ({ userId: o.userId, startsAt: iso(Date.parse(o.startsAt)), endsAt: iso(Date.parse(o.endsAt)) }));

/** Default range of `shifts` (from now) and of the calendar feed (a week back, 60 days ahead). */
const SHIFTS_SPAN_MS = 7 * DAY_MS;
const CALENDAR_BACK_MS = 7 * DAY_MS;
const CALENDAR_SPAN_MS = 67 * DAY_MS;

/**
 * How far back a look for handoffs reaches: a shift that started while no worker looked (a restart, a slow
 * look) is still announced, late, within this; older ones are not.
 */
const HANDOFF_LOOKBACK_MS = 10 * 60_000;

/** A shift's start, told to the person on call: its idempotency key is per schedule, shift start and person. */
export interface HandoffNotice {
  orgId: string;
  key: string;
  userId: string;
  /** Their account address. */
  email: string;
  subject: string;
  text: string;
}

export function schedulesService(deps: {
  store: Store; repo: SchedulesRepo; audit: AuditService; clock: Clock; cursors: CursorCodec;
  /**
   * Tells the incoming person of their shift, once per key, in the caller's transaction: a notification of
   * the notifications module, delivered (and retried, and logged) like every other. False when it was already.
   */
  handoff: (db: Kysely<DB>, notice: HandoffNotice) => Promise<boolean>;
  log: Logger;
}) {
  const { store, repo, audit, clock, cursors } = deps;

  const parts = (r: ScheduleRow) => ({
    layers: store.readJson<StoredLayer[]>(r.layers),
    overrides: store.readJson<StoredOverride[]>(r.overrides),
  });

  const toSchedule = (r: ScheduleRow): Schedule => ({
    id: r.id,
    name: r.name,
    description: r.description,
    timezone: r.timezone,
    ...parts(r),
    handoffNotices: Number(r.handoff_notices) === 1,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  });

  /** A schedule (stored, or a body being previewed) as the rotation functions take it. */
  const rotaOf = (timezone: string, layers: StoredLayer[], overrides: StoredOverride[]): OnCallSchedule => ({
    timezone,
    layers: layers.map((l): Layer => ({ ...l, startsAt: Date.parse(l.startsAt) })),
    overrides: overrides.map((o) => ({ userId: o.userId, startsAt: Date.parse(o.startsAt), endsAt: Date.parse(o.endsAt) })),
  });
  const rota = (r: ScheduleRow): OnCallSchedule => {
    const { layers, overrides } = parts(r);
    return rotaOf(r.timezone, layers, overrides);
  };

  /**
   * The shifts of [from, to) within one request's work. A stored schedule is checked when saved to expand
   * over the longest range in half that; one saved before that check, or asked for at a far-off time, may not.
   */
  function shiftsWithin(s: OnCallSchedule, from: number, to: number, budget = new WorkBudget()) {
    try {
      return shiftsBetween(s, from, to, budget);
    } catch (err) {
      if (err instanceof WorkLimitReached) throw invalid('/to', 'expanding the schedule over this range takes more work than one request may do; ask for a shorter range');
      throw err;
    }
  }

  const shiftsOut = (s: OnCallSchedule, from: number, to: number, budget?: WorkBudget): Shift[] => shiftsWithin(s, from, to, budget).map((sh) => ({
    userId: sh.userId,
    startsAt: iso(sh.startsAt),
    endsAt: iso(sh.endsAt),
    source: sh.source,
    ...(sh.layer !== null && { layerName: (s.layers[sh.layer] as Layer).name }),
  }));

  /**
   * A schedule whose longest servable range (MAX_RANGE_DAYS) does not expand within half a request's work
   * from `at` is refused (400): rotations and restrictions repeat, so later ranges cost about the same.
   */
  function checkExpansion(timezone: string, layers: StoredLayer[], overrides: StoredOverride[], at: number): void {
    if (expansionFits(rotaOf(timezone, layers, overrides), at, MAX_RANGE_DAYS, WORK_UNITS_PER_REQUEST / 2)) return;
    throw refused([{ path: '/layers', message: `expanding it over ${MAX_RANGE_DAYS} days takes more work than one request may do: use fewer layers, restrictions or overrides, or longer shifts` }]);
  }

  async function found(db: Kysely<DB>, orgId: string, id: string): Promise<ScheduleRow> {
    const row = await repo.get(db, orgId, id);
    if (!row) throw notFound('Schedule');
    return row;
  }

  /** Every user a schedule names must be a user of the organization: 400 naming each other one. */
  async function checkUsers(db: Kysely<DB>, orgId: string, input: { layers?: LayerBody[] | undefined; overrides?: OverrideBody[] | undefined }): Promise<void> {
    const mentions = userMentions(input);
    const known = new Set((await repo.users(db, orgId, mentions.map((m) => m.userId))).map((u) => u.id));
    const errors = mentions.filter((m) => !known.has(m.userId)).map((m) => ({ path: m.path, message: 'is not a user of this organization' }));
    if (errors.length > 0) throw refused(errors);
  }

  const usersById = async (orgId: string, ids: string[]): Promise<Map<string, ScheduleUser>> =>
    new Map((await repo.users(store.db, orgId, ids)).map((u) => [u.id, { id: u.id, name: u.name, email: u.email }]));

  function range(query: { from?: string | undefined; to?: string | undefined }, defaultFrom: number, span: number): { from: number; to: number } {
    const from = query.from !== undefined ? Date.parse(query.from) : defaultFrom;
    const to = query.to !== undefined ? Date.parse(query.to) : from + span;
    if (!(to > from)) throw invalid('/to', 'must be after from');
    if (to - from > MAX_RANGE_DAYS * DAY_MS) throw invalid('/to', `must be at most ${MAX_RANGE_DAYS} days after from`);
    return { from, to };
  }

  const entry = (r: ScheduleRow, oc: OnCall, users: Map<string, ScheduleUser>): OnCallEntry => ({
    scheduleId: r.id,
    scheduleName: r.name,
    user: oc.userId === null ? null : (users.get(oc.userId) ?? null),
    startsAt: isoOrNull(oc.startsAt),
    endsAt: isoOrNull(oc.endsAt),
  });

  /** The handoffs of one schedule's lookback; none when expanding it takes more than one step's work. */
  function handoffsWithin(row: ScheduleRow, at: number) {
    try {
      return handoffsBetween(rota(row), at, HANDOFF_LOOKBACK_MS, new WorkBudget());
    } catch (err) {
      if (!(err instanceof WorkLimitReached)) throw err;
      deps.log.warn({ orgId: row.org_id, scheduleId: row.id }, 'handoff check skipped: the schedule takes too much work to expand');
      return [];
    }
  }

  /** One look: every shift that started in the lookback of a schedule with notices, announced once (the notice's key decides). */
  async function checkHandoffs(): Promise<number> {
    const at = clock.now();
    let sent = 0;
    for (const row of await repo.withHandoffNotices(store.db)) {
      for (const h of handoffsWithin(row, at)) {
        const [user] = await repo.users(store.db, row.org_id, [h.userId]);
        if (!user) continue;
        const notice: HandoffNotice = { orgId: row.org_id, key: `handoff:${row.id}:${h.startsAt}:${h.userId}`, userId: user.id, email: user.email, ...handoffMessage(row.name, row.timezone, h) };
        if (await store.db.transaction().execute((trx) => deps.handoff(trx, notice))) sent += 1;
      }
    }
    return sent;
  }

  return {
    /** A stored schedule as the rotation functions take it (for the calendar feeds and "my on-call"). */
    rotaOf: rota,

    checkHandoffs,
    /** The handoff checker of a worker process, every `everyMs`. */
    startHandoffChecker: (everyMs: number): { stop(): Promise<void> } => periodic(everyMs, checkHandoffs, deps.log, 'handoff check failed'),

    async create(orgId: string, actor: Actor, input: CreateScheduleBody, db: Kysely<DB> = store.db): Promise<Schedule> {
      const errors = scheduleErrors({ timezone: input.timezone, layers: input.layers, overrides: input.overrides });
      if (errors.length > 0) throw refused(errors);
      const now = clock.now();
      checkExpansion(input.timezone ?? 'UTC', storedLayers(input.layers ?? []), storedOverrides(input.overrides ?? []), now);
      const row: ScheduleRow = {
        id: newId('sch'),
        org_id: orgId,
        name: input.name,
        description: input.description ?? null,
        timezone: input.timezone ?? 'UTC',
        layers: JSON.stringify(storedLayers(input.layers ?? [])),
        overrides: JSON.stringify(storedOverrides(input.overrides ?? [])),
        handoff_notices: input.handoffNotices === true ? 1 : 0,
        created_at: now,
        updated_at: now,
      };
      await inTransaction(db, async (trx) => {
        await checkUsers(trx, orgId, input);
        await repo.insert(trx, row);
        await audit.record(trx, { orgId, action: 'schedule.created', actor, target: { type: 'schedule', id: row.id }, metadata: { name: row.name } });
      });
      return toSchedule(row);
    },

    async get(orgId: string, id: string): Promise<Schedule> {
      return toSchedule(await found(store.db, orgId, id));
    },

    list(orgId: string, query: { limit: number; cursor?: string | undefined }): Promise<Page<Schedule>> {
      return paginate(cursors, `${orgId}:schedules`, query,
        (after) => repo.page(store.db, orgId, query.limit, after), () => repo.count(store.db, orgId), toSchedule);
    },

    /** Partial: fields left out stay; `layers` and `overrides` given replace the stored ones whole. */
    async update(orgId: string, actor: Actor, id: string, input: UpdateScheduleBody, db: Kysely<DB> = store.db): Promise<Schedule> {
      const errors = scheduleErrors({ timezone: input.timezone, layers: input.layers, overrides: input.overrides });
      if (errors.length > 0) throw refused(errors);
      const row = await inTransaction(db, async (trx) => {
        const current = await found(trx, orgId, id);
        const stored = parts(current);
        checkExpansion(input.timezone ?? current.timezone, input.layers ? storedLayers(input.layers) : stored.layers,
          input.overrides ? storedOverrides(input.overrides) : stored.overrides, clock.now());
        await checkUsers(trx, orgId, input);
        const updated = await repo.update(trx, orgId, id, {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.timezone !== undefined && { timezone: input.timezone }),
          ...(input.layers !== undefined && { layers: JSON.stringify(storedLayers(input.layers)) }),
          ...(input.overrides !== undefined && { overrides: JSON.stringify(storedOverrides(input.overrides)) }),
          ...(input.handoffNotices !== undefined && { handoff_notices: input.handoffNotices ? 1 : 0 }),
          updated_at: clock.now(),
        });
        if (!updated) throw notFound('Schedule');
        await audit.record(trx, { orgId, action: 'schedule.updated', actor, target: { type: 'schedule', id }, metadata: { changed: Object.keys(input) } });
        return updated;
      });
      return toSchedule(row);
    },

    /** A removed member leaves every schedule (see `withoutUser`), in the removal's transaction. */
    async forgetMember(db: Kysely<DB>, orgId: string, userId: string, actor: Actor, at: number): Promise<void> {
      for (const row of await repo.all(db, orgId)) {
        const changed = withoutUser(parts(row), userId);
        if (!changed) continue;
        await repo.update(db, orgId, row.id, { layers: JSON.stringify(changed.layers), overrides: JSON.stringify(changed.overrides), updated_at: at });
        await audit.record(db, { orgId, action: 'schedule.updated', actor, target: { type: 'schedule', id: row.id }, metadata: { changed: ['layers', 'overrides'], removedUserId: userId } });
      }
    },

    async remove(orgId: string, actor: Actor, id: string): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, orgId, id))) throw notFound('Schedule');
        await audit.record(trx, { orgId, action: 'schedule.deleted', actor, target: { type: 'schedule', id } });
      });
    },

    /**
     * Who is on call in one schedule at `at` (default now): the user's `{id, name, email}`, or null when
     * nobody is, or when the organization has no such schedule. For incidents (assign) and notifications
     * (toOnCall); `db` lets a caller ask inside its own transaction.
     */
    async currentOnCall(orgId: string, scheduleId: string, at: number = clock.now(), db: Kysely<DB> = store.db): Promise<ScheduleUser | null> {
      const row = await repo.get(db, orgId, scheduleId);
      if (!row) return null;
      const userId = whoAt(rota(row), at);
      if (userId === null) return null;
      const [user] = await repo.users(db, orgId, [userId]);
      return user ? { id: user.id, name: user.name, email: user.email } : null;
    },

    /** `GET /schedules/current-oncall`: one entry per schedule (a page of them), or only `scheduleId`'s. */
    async onCallList(orgId: string, query: { scheduleId?: string | undefined; at?: string | undefined; limit: number; cursor?: string | undefined }): Promise<Page<OnCallEntry>> {
      const at = query.at !== undefined ? Date.parse(query.at) : clock.now();
      // One request's work for the whole page: where it runs out, the later entries' bounds are null.
      const budget = new WorkBudget();
      if (query.scheduleId !== undefined) {
        const row = await found(store.db, orgId, query.scheduleId);
        const oc = onCallAt(rota(row), at, budget);
        const users = await usersById(orgId, oc.userId === null ? [] : [oc.userId]);
        return { data: [entry(row, oc, users)], meta: { limit: query.limit, hasMore: false, nextCursor: null, total: 1 } };
      }
      const page = await paginate(cursors, `${orgId}:schedules:oncall`, query,
        (after) => repo.page(store.db, orgId, query.limit, after), () => repo.count(store.db, orgId),
        (r) => ({ row: r, oc: onCallAt(rota(r), at, budget) }));
      const users = await usersById(orgId, page.data.flatMap((d) => (d.oc.userId === null ? [] : [d.oc.userId])));
      return { data: page.data.map((d) => entry(d.row, d.oc, users)), meta: page.meta };
    },

    /** `GET /schedules/{id}/shifts`: the final shifts intersecting [from, to) (default: the 7 days from now). */
    async shifts(orgId: string, id: string, query: { from?: string | undefined; to?: string | undefined }): Promise<ScheduleShifts> {
      const row = await found(store.db, orgId, id);
      const { from, to } = range(query, clock.now(), SHIFTS_SPAN_MS);
      return {
        scheduleId: row.id,
        timezone: row.timezone,
        from: iso(from),
        to: iso(to),
        shifts: shiftsOut(rota(row), from, to),
      };
    },

    /**
     * `POST /schedules/preview`: a create body checked exactly as create checks it, and what it would give
     * (who is on call now, the shifts in [from, to)), without storing anything.
     */
    async preview(orgId: string, input: CreateScheduleBody, query: { from?: string | undefined; to?: string | undefined }): Promise<SchedulePreview> {
      const errors = scheduleErrors({ timezone: input.timezone, layers: input.layers, overrides: input.overrides });
      if (errors.length > 0) throw refused(errors);
      await checkUsers(store.db, orgId, input);
      const now = clock.now();
      const { from, to } = range(query, now, SHIFTS_SPAN_MS);
      const timezone = input.timezone ?? 'UTC';
      checkExpansion(timezone, storedLayers(input.layers ?? []), storedOverrides(input.overrides ?? []), now);
      const s = rotaOf(timezone, storedLayers(input.layers ?? []), storedOverrides(input.overrides ?? []));
      // One request's work: the shifts first (refused when they do not fit), then the bounds of who is on call now.
      const budget = new WorkBudget();
      const shifts = shiftsOut(s, from, to, budget);
      const oc = onCallAt(s, now, budget);
      const users = await usersById(orgId, oc.userId === null ? [] : [oc.userId]);
      return {
        timezone,
        from: iso(from),
        to: iso(to),
        onCall: { user: oc.userId === null ? null : (users.get(oc.userId) ?? null), startsAt: isoOrNull(oc.startsAt), endsAt: isoOrNull(oc.endsAt) },
        shifts,
      };
    },

    /** The iCalendar feed of the schedule's final shifts (default: 7 days back to 60 days ahead). */
    async calendar(orgId: string, id: string, query: { from?: string | undefined; to?: string | undefined }): Promise<string> {
      const row = await found(store.db, orgId, id);
      const now = clock.now();
      const { from, to } = range(query, now - CALENDAR_BACK_MS, CALENDAR_SPAN_MS);
      const s = rota(row);
      const shifts = shiftsWithin(s, from, to);
      const users = await usersById(orgId, shifts.map((sh) => sh.userId));
      return calendar({
        name: row.name,
        timezone: row.timezone,
        stamp: now,
        events: shifts.map((sh) => ({
          uid: eventUid([row.id, sh.userId, String(sh.startsAt), sh.source, String(sh.layer)]),
          startsAt: sh.startsAt,
          endsAt: sh.endsAt,
          summary: `On call: ${users.get(sh.userId)?.name ?? sh.userId}`,
          description: sh.layer !== null
            ? `${row.name}, layer ${(s.layers[sh.layer] as Layer).name}`
            : `${row.name}, override`,
        })),
      });
    },
  };
}
export type SchedulesService = ReturnType<typeof schedulesService>;
