import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type AlertRow = DB['alerts'];

export interface AlertFilter {
  status?: string[];
  severity?: string[];
  source?: string;
  fingerprint?: string;
  integrationId?: string;
  clientId?: string;
  labels?: Array<[string, string]>;
  since?: number;
  until?: number;
  q?: string;
  flapping?: boolean;
}

const LIST_COLUMNS = [
  'id', 'org_id', 'integration_id', 'client_id', 'incident_id', 'fingerprint', 'title', 'severity', 'status', 'source',
  'description', 'labels', 'annotations', 'occurrences', 'last_seen_at', 'acknowledged_at', 'acknowledged_by_type',
  'acknowledged_by_id', 'resolved_at', 'resolved_by_type', 'resolved_by_id', 'suppression_id', 'created_at', 'updated_at', 'flapping',
] as const;
export type AlertListRow = Pick<AlertRow, (typeof LIST_COLUMNS)[number]>;

/**
 * The predicates of the partial indexes that hold alerts by fingerprint, literally: SQLite uses a partial index
 * (or matches an upsert's conflict target to one) only when the statement repeats its WHERE term by term.
 * `alerts_open_fingerprint` is also the unique index behind "one open alert per fingerprint".
 */
export const OPEN_FINGERPRINT = `status in ('firing', 'acknowledged', 'suppressed')`;
const CLOSED_FINGERPRINT = `status not in ('firing', 'acknowledged', 'suppressed')`;

const byStatusOnly = (f: AlertFilter): boolean =>
  Object.entries(f).every(([k, v]) => v === undefined || k === 'status' || (k === 'labels' && (v as unknown[]).length === 0));

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export function alertsRepo(store: Store) {
  /** A fingerprint's alerts: the open one and the closed ones, each from the partial index that holds it (migration 0016). */
  const byFingerprint = (db: Kysely<DB>, orgId: string, fingerprint: string) => {
    const part = (predicate: string) => db.selectFrom('alerts').select('id')
      .where('org_id', '=', orgId).where('fingerprint', '=', fingerprint).where(sql<boolean>`${sql.raw(predicate)}`);
    return part(OPEN_FINGERPRINT).unionAll(part(CLOSED_FINGERPRINT));
  };
  const filtered = (db: Kysely<DB>, orgId: string, f: AlertFilter): SelectQueryBuilder<DB, 'alerts', {}> => {
    let q = db.selectFrom('alerts').where('org_id', '=', orgId);
    if (f.status?.length) q = q.where('status', 'in', f.status);
    if (f.severity?.length) q = q.where('severity', 'in', f.severity);
    if (f.source !== undefined) q = q.where('source', '=', f.source);
    if (f.fingerprint !== undefined) q = q.where('id', 'in', byFingerprint(db, orgId, f.fingerprint));
    if (f.integrationId !== undefined) q = q.where('integration_id', '=', f.integrationId);
    if (f.clientId !== undefined) q = q.where('client_id', '=', f.clientId);
    if (f.since !== undefined) q = q.where('created_at', '>=', f.since);
    if (f.until !== undefined) q = q.where('created_at', '<', f.until);
    // Literal, so that SQLite uses the partial index of flapping alerts (migration 0032).
    if (f.flapping !== undefined) q = q.where(sql<boolean>`${sql.raw(f.flapping ? 'flapping = 1' : 'flapping = 0')}`);
    if (f.q) q = q.where(sql<boolean>`lower(title) like ${`%${escapeLike(f.q.toLowerCase())}%`} escape '\\'`);
    for (const [k, v] of f.labels ?? []) q = q.where(sql<boolean>`${store.jsonText('labels', k)} = ${v}`);
    return q;
  };

  return {
    page: (db: Kysely<DB>, orgId: string, f: AlertFilter, limit: number, after: Keyset | null) =>
      keysetPage(filtered(db, orgId, f).select([...LIST_COLUMNS]), limit, after).execute(),
    /** Matching alerts: from the alert writer's counters when only statuses filter, else by counting rows. */
    async count(db: Kysely<DB>, orgId: string, f: AlertFilter): Promise<number> {
      if (!byStatusOnly(f)) return countRows(filtered(db, orgId, f));
      let q = db.selectFrom('alert_counts').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n')).where('org_id', '=', orgId);
      if (f.status?.length) q = q.where('status', 'in', f.status);
      return Number((await q.executeTakeFirstOrThrow()).n);
    },
    /** Up to `limit` ids of matching alerts, newest first (the list's order). */
    ids: async (db: Kysely<DB>, orgId: string, f: AlertFilter, limit: number): Promise<string[]> =>
      (await filtered(db, orgId, f).select('id').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()).map((r) => r.id),
    /** A fingerprint's alerts in one integration, newest first: its state history (the open one and the closed ones, each from its index). */
    history: (db: Kysely<DB>, orgId: string, integrationId: string, fingerprint: string, limit: number) =>
      db.selectFrom('alerts').select(['id', 'created_at', 'resolved_at']).where('id', 'in', byFingerprint(db, orgId, fingerprint))
        .where('integration_id', '=', integrationId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute(),
    incidentNumber: async (db: Kysely<DB>, orgId: string, incidentId: string): Promise<number | null> =>
      (await db.selectFrom('incidents').select('number').where('org_id', '=', orgId).where('id', '=', incidentId).executeTakeFirst())?.number ?? null,
    get: (db: Kysely<DB>, orgId: string, id: string) =>
      db.selectFrom('alerts').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    /** The open alert with a fingerprint (at most one: the unique index `alerts_open_fingerprint`). */
    openByFingerprint: (db: Kysely<DB>, orgId: string, fingerprint: string) =>
      db.selectFrom('alerts').selectAll().where('org_id', '=', orgId).where('fingerprint', '=', fingerprint)
        .where(sql<boolean>`${sql.raw(OPEN_FINGERPRINT)}`).executeTakeFirst(),
    /** A sender's correction of an alert's text (Opsgenie's update message and description). */
    edit: (db: Kysely<DB>, orgId: string, id: string, changes: { title?: string; description?: string | null }, at: number) =>
      db.updateTable('alerts').set({ ...changes, updated_at: at }).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst(),

  };
}
export type AlertsRepo = ReturnType<typeof alertsRepo>;
