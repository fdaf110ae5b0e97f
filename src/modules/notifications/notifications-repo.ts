import { sql, type Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import { runSql, runSqlChanges, textFor } from '../../db/sql-text.ts';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';
import { LIST_COLUMNS, type AlertListRow } from '../alerts/alerts-repo.ts';

export type NotificationRow = DB['notifications'];
export type IncidentRow = DB['incidents'];
/** The alert's columns in a page's reads (`pageReads`), apart from its incident's. */
const ALERT_PREFIX = 'alert__';
/** What a page's message is made of, as it is now: its alert (null once deleted), incident and workflow (each absent when there is none, or it is gone). */
export interface PageReads {
  alert: AlertListRow | null;
  incident?: IncidentRow;
  workflow?: { name: string | null; trigger: string };
}

/** What a delivery attempt records; it applies only while the attempt is still the row's latest. */
export type AttemptResult = Pick<NotificationRow, 'status' | 'last_error' | 'response_status' | 'sent_at'> & { provider_ref?: string };

/**
 * The delivery log of an incident, oldest first (for its timeline), at most `limit` entries. For the
 * incidents module.
 */
export function forIncident(db: Kysely<DB>, orgId: string, incidentId: string, limit = 200): Promise<NotificationRow[]> {
  return db.selectFrom('notifications').selectAll().where('org_id', '=', orgId).where('incident_id', '=', incidentId)
    .orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
}

export function notificationsRepo(store: Pick<Store, 'dialect'>) {
  // The statements every page runs (insert, get, claim, record) are SQL text: Kysely's builder cost more than running
  // them (docs/benchmarks.md, "Alert to page: latency and the knee").
  const t = (text: string) => textFor(store, text);
  const insertTexts = new Map<string, string>();
  const getText = t('select * from notifications where id = $1');
  // Free: never tried, or its last attempt recorded a failure, or that attempt went silent past its lease; `also`, a
  // further condition (the attempts the caller read).
  const claimSql = (also: string) => t(`update notifications set attempts = attempts + 1, updated_at = $1, last_error = null, response_status = null
    where id = $2 and status = 'pending' and (attempts = 0 or last_error is not null or updated_at < $3)${also} returning *`);
  const claimText = claimSql('');
  const claimReadText = claimSql(' and attempts = $4');
  // A provider's reference is kept only when the attempt has one; a cancelled page that was sent says so.
  const recordText = t(`update notifications
    set status = $1, last_error = $2, response_status = $3, sent_at = $4, paced_at = null, updated_at = $5, provider_ref = coalesce($8, provider_ref)
    where id = $6 and attempts = $7 and (status = 'pending' or (status = 'cancelled' and $1 = 'sent'))`);
  // One row whatever is found: the alert's columns (prefixed), the incident's (the alert's own, else the page's; null
  // without one) and the workflow's name and trigger.
  const readsText = t(`select ${LIST_COLUMNS.map((c) => `a.${c} as ${ALERT_PREFIX}${c}`).join(', ')}, i.*, w.name as page_workflow_name, w.trigger as page_workflow_trigger
    from (select 1 as one) page left join alerts a on a.org_id = $1 and a.id = $2
    left join incidents i on i.org_id = $1 and i.id = coalesce(a.incident_id, $3) left join workflows w on w.org_id = $1 and w.id = $4`);
  const ofAlert = (db: Kysely<DB>, orgId: string, alertId: string) =>
    db.selectFrom('notifications').where('org_id', '=', orgId).where('alert_id', '=', alertId);
  return {
    /** Inserts the row unless its idempotency key exists already (the unique index decides, atomically). */
    insertIfAbsent: async (db: Kysely<DB>, row: NotificationRow): Promise<boolean> => {
      const columns = Object.keys(row) as Array<keyof NotificationRow>;
      const key = columns.join(',');
      let text = insertTexts.get(key);
      if (text === undefined) {
        text = t(`insert into notifications (${key}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')}) on conflict (idempotency_key) do nothing returning id`);
        insertTexts.set(key, text);
      }
      return (await runSql(db, text, columns.map((c) => row[c]))).length > 0;
    },
    byKey: (db: Kysely<DB>, key: string) =>
      db.selectFrom('notifications').select('id').where('idempotency_key', '=', key).executeTakeFirst(),
    get: async (db: Kysely<DB>, id: string): Promise<NotificationRow | undefined> => (await runSql<NotificationRow>(db, getText, [id]))[0],

    /**
     * Takes the next attempt of a pending notification and returns the row as claimed: one conditional UPDATE, so
     * of two workers running the same job only one gets it (the winner's attempt is neither failed nor stale).
     * An attempt that recorded nothing for `staleBefore`'s span is presumed dead (its worker crashed) and may be
     * taken over; a live one may not. `attempts`: the count the caller read, when it read the row first (the claim
     * then fails if another attempt came in between).
     */
    claim: async (db: Kysely<DB>, id: string, attempts: number | null, now: number, staleBefore: number): Promise<NotificationRow | undefined> =>
      (await runSql<NotificationRow>(db, attempts === null ? claimText : claimReadText, attempts === null ? [now, id, staleBefore] : [now, id, staleBefore, attempts]))[0],

    /**
     * Records the outcome of attempt number `attempt`; a later attempt's row is left alone. A page cancelled
     * while this attempt was under way stays cancelled unless the attempt did send it (then it says so).
     */
    /** Whether it recorded (false: a later attempt, or another outcome, came first). */
    record: async (db: Kysely<DB>, id: string, attempt: number, result: AttemptResult, now: number): Promise<boolean> => {
      // The attempt's send slot is spent: a retry waits for a new one.
      return (await runSqlChanges(db, recordText, [result.status, result.last_error, result.response_status, result.sent_at, now, id, attempt,
        result.provider_ref ?? null])) > 0;
    },

    /**
     * Cancels the escalation pages of an incident (or of one of its escalations) still pending: never tried,
     * waiting for a retry, or in an attempt right now (which, if it does send, records so: see `record`).
     */
    cancelPages: async (db: Kysely<DB>, orgId: string, scope: { incidentId: string } | { escalationId: string }, reason: string, now: number): Promise<number> => {
      let q = db.updateTable('notifications').set({ status: 'cancelled', last_error: reason, updated_at: now })
        .where('org_id', '=', orgId).where('source', '=', 'escalation').where('status', '=', 'pending');
      q = 'incidentId' in scope ? q.where('incident_id', '=', scope.incidentId) : q.where('escalation_id', '=', scope.escalationId);
      return Number((await q.executeTakeFirst()).numUpdatedRows);
    },

    /**
     * The next send slot of a paced key (one send per `everyMs`): now if the key is idle, else right after the
     * slot last handed out. One atomic upsert, so concurrent workers (and instances) get distinct slots.
     */
    reserveSlot: async (db: Kysely<DB>, key: string, everyMs: number, now: number): Promise<number> => {
      const r = await db.insertInto('send_pace').values({ key, next_at: now + everyMs })
        .onConflict((oc) => oc.column('key').doUpdateSet({
          next_at: sql<number>`(case when send_pace.next_at > ${now} then send_pace.next_at else ${now} end) + ${everyMs}`,
        }))
        .returning('next_at').executeTakeFirstOrThrow();
      return Number(r.next_at) - everyMs;
    },
    /**
     * The turn to send now under a paced key: slots space sends as they are handed out, but a worker that runs
     * late would send two slots' messages back to back. So the send takes its turn too, in the key's `#sent` row
     * (when the next send may go; one atomic upsert): due (within `toleranceMs`, a timer's jitter), the turn is
     * taken and the next one is `everyMs` after the later of now and this one; else the time it comes.
     */
    takeTurn: async (db: Kysely<DB>, key: string, everyMs: number, now: number, toleranceMs: number): Promise<{ ok: true } | { ok: false; at: number }> => {
      const gate = `${key}#sent`;
      const taken = await db.insertInto('send_pace').values({ key: gate, next_at: now + everyMs })
        .onConflict((oc) => oc.column('key').doUpdateSet({
          next_at: sql<number>`(case when send_pace.next_at > ${now} then send_pace.next_at else ${now} end) + ${everyMs}`,
        }).where('send_pace.next_at', '<=', now + toleranceMs))
        .returning('next_at').executeTakeFirst();
      if (taken) return { ok: true };
      const row = await db.selectFrom('send_pace').select('next_at').where('key', '=', gate).executeTakeFirst();
      return row ? { ok: false, at: Number(row.next_at) } : { ok: true };
    },
    /** Holds a slot for the attempt about to be made (`attempts` so far); false when the row moved on meanwhile. */
    holdSlot: async (db: Kysely<DB>, id: string, attempts: number, slot: number): Promise<boolean> =>
      Number((await db.updateTable('notifications').set({ paced_at: slot })
        .where('id', '=', id).where('attempts', '=', attempts).where('status', '=', 'pending').where('paced_at', 'is', null).executeTakeFirst()).numUpdatedRows) === 1,

    /** What the provider says became of a sent message; a failure marks the row failed, with why. */
    providerStatus: (db: Kysely<DB>, orgId: string, id: string, status: string, failure: string | null, now: number) =>
      db.updateTable('notifications')
        .set({ provider_status: status, updated_at: now, ...(failure !== null && { status: 'failed', last_error: failure }) })
        // A failure reported while the send's own answer is still being recorded wins: that record applies only to a pending row.
        .where('org_id', '=', orgId).where('id', '=', id).where('status', 'in', failure !== null ? ['sent', 'failed', 'pending'] : ['sent', 'failed', 'pending', 'cancelled'])
        .execute(),

    page: (db: Kysely<DB>, orgId: string, alertId: string, limit: number, after: Keyset | null) =>
      keysetPage(ofAlert(db, orgId, alertId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string, alertId: string) => countRows(ofAlert(db, orgId, alertId)),
    forIncident,

    alertExists: async (db: Kysely<DB>, orgId: string, alertId: string): Promise<boolean> =>
      (await db.selectFrom('alerts').select('id').where('org_id', '=', orgId).where('id', '=', alertId).executeTakeFirst()) !== undefined,
    /**
     * A page's alert, incident and workflow as they are now, read in one statement (each a round trip of its own on
     * PostgreSQL, where round trips are most of a page's cost: docs/benchmarks.md, "Alert to page: latency and the knee").
     */
    async pageReads(db: Kysely<DB>, orgId: string, alertId: string, incidentId: string | null, workflowId: string | null): Promise<PageReads> {
      const [row] = await runSql<Record<string, unknown>>(db, readsText, [orgId, alertId, incidentId, workflowId]);
      const { page_workflow_name: name, page_workflow_trigger: trigger } = row as Record<string, unknown>;
      const alert: Record<string, unknown> = {};
      const incident: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
        if (key.startsWith(ALERT_PREFIX)) alert[key.slice(ALERT_PREFIX.length)] = value;
        else if (key !== 'page_workflow_name' && key !== 'page_workflow_trigger') incident[key] = value;
      }
      return {
        alert: alert.id === null ? null : alert as AlertListRow,
        ...(incident.id !== null && { incident: incident as IncidentRow }),
        ...(workflowId !== null && trigger !== null && { workflow: { name: name as string | null, trigger: trigger as string } }),
      };
    },
  };
}
export type NotificationsRepo = ReturnType<typeof notificationsRepo>;
