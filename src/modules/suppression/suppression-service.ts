import { periodic } from '../../lib/periodic.ts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { AppError, invalid, notFound, type ErrorDetail } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AuditService } from '../audit/audit-service.ts';
import { allLeavesHold } from '../../lib/conditions.ts';
import type { Alert } from '../alerts/alerts-schemas.ts';
import type { AlertWriter } from '../alerts/alert-writer.ts';
import { WorkBudget } from '../../lib/work-budget.ts';
import { isActive, occurrencesAfter, type Schedule } from './recurrence-fns.ts';
import { checkWindow, fieldErrors, inForceAt, settle, type WindowInput } from './suppression-fns.ts';
import type { SuppressionRepo, SuppressionRow } from './suppression-repo.ts';
import {
  PREVIEW_ALERTS, PREVIEW_SCAN, UPCOMING, type CreateSuppressionBody, type SuppressionPreview, type SuppressionWindow, type UpdateSuppressionBody,
} from './suppression-schemas.ts';

const refused = (errors: ErrorDetail[]): AppError => new AppError('VALIDATION_ERROR', 'Suppression window is invalid', errors);

export interface SweepResult {
  /** Alerts returned to firing. */
  released: number;
  /** Alerts handed to another window in force that holds them. */
  moved: number;
}

/**
 * Suppression windows (maintenance windows): CRUD, and the return of the alerts a window suppressed to
 * `firing` when it no longer holds them: when it ends (the sweeper), is deleted, or is changed so that it
 * does not match them any more. Whether a window is in force is always derived from time, never stored.
 */
export function suppressionService(deps: { store: Store; repo: SuppressionRepo; alerts: Pick<AlertWriter, 'release' | 'repoint'>; audit: AuditService; clock: Clock; cursors: CursorCodec; log: Logger }) {
  const { store, repo, alerts, audit, clock, cursors, log } = deps;

  const timing = (w: Schedule, now: number, budget: WorkBudget): Pick<SuppressionWindow, 'active' | 'nextOccurrences'> => {
    const upcoming = occurrencesAfter(w, now, UPCOMING, budget);
    return {
      active: upcoming[0] !== undefined && upcoming[0].startsAt <= now,
      nextOccurrences: upcoming.map((o) => ({ startsAt: iso(o.startsAt), endsAt: iso(o.endsAt) })),
    };
  };

  /** A window as shown; `budget` is the request's work for expanding rules (a list page shares one). */
  const toResource = (r: SuppressionRow, now: number, budget = new WorkBudget()): SuppressionWindow => {
    const w = repo.toWindow(r);
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      startsAt: iso(r.starts_at),
      endsAt: iso(r.ends_at),
      timezone: r.timezone,
      recurrence: r.recurrence,
      matchers: w.matchers,
      clientId: r.client_id,
      ...timing(w, now, budget),
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    };
  };

  async function checkClient(db: Kysely<DB>, orgId: string, clientId: string | null | undefined): Promise<void> {
    if (clientId && !(await repo.clientExists(db, orgId, clientId))) throw invalid('/clientId', 'is not a client of this organization');
  }

  /**
   * Returns alerts a window no longer holds to `firing`; the ids that moved. From here on such an alert is
   * treated like a new firing alert by what follows (contract §5: workflows run with trigger `alert.reopened`).
   * This is the one place where windows release alerts; the alert writer records each suppressed → firing move
   * as an `alert.reopened` event in the same transaction.
   */
  const releaseAlerts = (db: Kysely<DB>, orgId: string, ids: string[], from: string, at: number): Promise<string[]> =>
    alerts.release(db, orgId, ids, from, at);

  /** Where each alert that `windowId` suppresses belongs at `at`: it stays, goes to another window that holds it, or is released. */
  async function resettle(db: Kysely<DB>, orgId: string, windowId: string, at: number): Promise<SweepResult> {
    const held = await repo.heldBy(db, orgId, windowId);
    if (held.length === 0) return { released: 0, moved: 0 };
    const windows = await repo.forOrg(db, orgId, at);
    const moves = new Map<string, string[]>();
    const release: string[] = [];
    const inForce = inForceAt(at);
    for (const alert of held) {
      const to = settle(windows, alert, windowId, inForce);
      if (to === windowId) continue;
      if (to === null) release.push(alert.id);
      else moves.set(to, [...(moves.get(to) ?? []), alert.id]);
    }
    let moved = 0;
    for (const [to, ids] of moves) {
      await alerts.repoint(db, orgId, ids, windowId, to, at);
      moved += ids.length;
    }
    const released = await releaseAlerts(db, orgId, release, windowId, at);
    return { released: released.length, moved };
  }

  async function sweep(at: number = clock.now()): Promise<SweepResult> {
    const total: SweepResult = { released: 0, moved: 0 };
    const holders = await repo.holders(store.db);
    if (holders.length === 0) return total;
    const windows = new Map((await repo.byIds(store.db, [...new Set(holders.map((h) => h.suppression_id))])).map((w) => [w.id, w]));
    for (const h of holders) {
      const w = windows.get(h.suppression_id);
      // A window in force keeps its alerts (a change to its matchers was settled when it was made).
      if (w && isActive(w, at)) continue;
      const r = await store.db.transaction().execute((trx) => resettle(trx, h.org_id, h.suppression_id, at));
      total.released += r.released;
      total.moved += r.moved;
    }
    if (total.released + total.moved > 0) log.info({ ...total }, 'suppression windows ended: alerts returned to firing or moved');
    return total;
  }

  /** A create body checked as a whole, in its stored form. */
  function checkedBody(input: CreateSuppressionBody): WindowInput {
    const checked = checkWindow({
      startsAt: Date.parse(input.startsAt),
      endsAt: Date.parse(input.endsAt),
      timezone: input.timezone ?? 'UTC',
      recurrence: input.recurrence ?? null,
      matchers: input.matchers ?? [],
    });
    if (!checked.ok) throw refused(checked.errors);
    return checked.window;
  }

  return {
    async create(orgId: string, actor: Actor, input: CreateSuppressionBody): Promise<SuppressionWindow> {
      const w = checkedBody(input);
      const now = clock.now();
      const row: SuppressionRow = {
        id: newId('sup'),
        org_id: orgId,
        name: input.name,
        description: input.description ?? null,
        starts_at: w.startsAt,
        ends_at: w.endsAt,
        matchers: JSON.stringify(w.matchers),
        recurrence: w.recurrence,
        timezone: w.timezone,
        client_id: input.clientId ?? null,
        created_at: now,
        updated_at: now,
      };
      await store.db.transaction().execute(async (trx) => {
        await checkClient(trx, orgId, row.client_id);
        await repo.insert(trx, row);
        await audit.record(trx, { orgId, action: 'suppression.created', actor, target: { type: 'suppression_window', id: row.id }, metadata: { name: row.name } });
      });
      return toResource(row, now);
    },

    /**
     * `POST /suppression/preview`: a create body checked exactly as create checks it, its occurrences, and the
     * open alerts its client and matchers hold (whatever the time), without storing anything.
     */
    async preview(orgId: string, input: CreateSuppressionBody): Promise<SuppressionPreview> {
      const w = checkedBody(input);
      const clientId = input.clientId ?? null;
      await checkClient(store.db, orgId, clientId);
      const open = await repo.openAlerts(store.db, orgId, clientId, PREVIEW_SCAN);
      const held = open.filter((a) => allLeavesHold(w.matchers, a));
      return {
        ...timing(w, clock.now(), new WorkBudget()),
        alerts: held.slice(0, PREVIEW_ALERTS).map((a) => ({
          id: a.id, title: a.title, severity: a.severity as Alert['severity'], status: a.status as Alert['status'], clientId: a.clientId, createdAt: iso(a.createdAt),
        })),
        complete: held.length <= PREVIEW_ALERTS && open.length < PREVIEW_SCAN,
      };
    },

    async get(orgId: string, id: string): Promise<SuppressionWindow> {
      const row = await repo.get(store.db, orgId, id);
      if (!row) throw notFound('Suppression window');
      return toResource(row, clock.now());
    },

    list(orgId: string, query: { limit: number; cursor?: string | undefined; clientId?: string | undefined }): Promise<Page<SuppressionWindow>> {
      const now = clock.now();
      // One request's work for the whole page: windows past it show no upcoming occurrences.
      const budget = new WorkBudget();
      return paginate(cursors, `${orgId}:suppression:${query.clientId ?? ''}`, query,
        (after) => repo.page(store.db, orgId, query.clientId, query.limit, after), () => repo.count(store.db, orgId, query.clientId), (r) => toResource(r, now, budget));
    },

    /** Partial update; the alerts the window suppresses are settled again against the result, in the same transaction. */
    async update(orgId: string, actor: Actor, id: string, input: UpdateSuppressionBody): Promise<SuppressionWindow> {
      const given: Partial<WindowInput> = {
        ...(input.timezone !== undefined && { timezone: input.timezone }),
        ...(input.recurrence !== undefined && { recurrence: input.recurrence }),
        ...(input.matchers !== undefined && { matchers: input.matchers }),
      };
      const errors = fieldErrors(given);
      if (errors.length > 0) throw refused(errors);
      const now = clock.now();
      const row = await store.db.transaction().execute(async (trx) => {
        const current = await repo.get(trx, orgId, id);
        if (!current) throw notFound('Suppression window');
        const checked = checkWindow({
          startsAt: input.startsAt !== undefined ? Date.parse(input.startsAt) : current.starts_at,
          endsAt: input.endsAt !== undefined ? Date.parse(input.endsAt) : current.ends_at,
          timezone: input.timezone ?? current.timezone,
          recurrence: input.recurrence !== undefined ? input.recurrence : current.recurrence,
          matchers: input.matchers ?? repo.toWindow(current).matchers,
        });
        if (!checked.ok) throw refused(checked.errors);
        if (input.clientId !== undefined) await checkClient(trx, orgId, input.clientId);
        const w = checked.window;
        const updated = await repo.update(trx, orgId, id, {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.clientId !== undefined && { client_id: input.clientId }),
          starts_at: w.startsAt,
          ends_at: w.endsAt,
          timezone: w.timezone,
          recurrence: w.recurrence,
          matchers: JSON.stringify(w.matchers),
          updated_at: now,
        });
        if (!updated) throw notFound('Suppression window');
        await audit.record(trx, { orgId, action: 'suppression.updated', actor, target: { type: 'suppression_window', id }, metadata: { changed: Object.keys(input) } });
        await resettle(trx, orgId, id, now);
        return updated;
      });
      return toResource(row, now);
    },

    /** Deletes a window; the alerts it suppressed return to firing (or to another window that holds them) in the same transaction. */
    async remove(orgId: string, actor: Actor, id: string): Promise<void> {
      const now = clock.now();
      await store.db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, orgId, id))) throw notFound('Suppression window');
        await audit.record(trx, { orgId, action: 'suppression.deleted', actor, target: { type: 'suppression_window', id } });
        await resettle(trx, orgId, id, now);
      });
    },

    /**
     * Settles the alerts of every window that has ended or is gone: each returns to firing unless another
     * window in force holds it. Idempotent; instances may run it concurrently (each move is conditional).
     */
    sweep,

    /** Runs `sweep` every `everyMs` (never two at once); `stop` waits for a sweep under way. */
    startSweeper: (everyMs: number): { stop(): Promise<void> } => periodic(everyMs, sweep, log, 'suppression sweep failed'),
  };
}
export type SuppressionService = ReturnType<typeof suppressionService>;
