import { sql, type Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { keysetSql } from '../../db/keyset.ts';
import { runSql, sqlParams, textFor, type SqlParams } from '../../db/sql-text.ts';
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

/** What a listed alert shows (its organization is the caller's); a page's message shows the same. */
export const LIST_COLUMNS = [
  'id', 'integration_id', 'client_id', 'incident_id', 'fingerprint', 'title', 'severity', 'status', 'source',
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

const oneOf = (column: string, values: string[], p: SqlParams) => `${column} in (${values.map((v) => p.add(v)).join(', ')})`;

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A fingerprint's alerts: the open one and the closed ones, each from the partial index that holds it (migration 0016). */
const byFingerprintSql = (orgId: string, fingerprint: string) => {
  const part = (predicate: string) => `select id from alerts where org_id = ${orgId} and fingerprint = ${fingerprint} and ${predicate}`;
  return `${part(OPEN_FINGERPRINT)} union all ${part(CLOSED_FINGERPRINT)}`;
};

export function alertsRepo(store: Store) {
  const run = <R>(db: Kysely<DB>, text: string, p: SqlParams): Promise<R[]> => runSql<R>(db, text, p.values);
  const getText = textFor(store, 'select * from alerts where org_id = $1 and id = $2');
  /**
   * The filters as the WHERE clause of SQL text, their values bound to `p`. The list is read on every dashboard
   * load and refresh: written out rather than built with Kysely, the same filters give the same text, which SQLite
   * keeps prepared (sqlite-database.ts), and no query is built per request
   * (docs/benchmarks.md#reads-list-cpu-rest-floor-key-use).
   */
  const where = (orgId: string, f: AlertFilter, p: SqlParams): string => {
    const org = p.add(orgId);
    const terms = [`org_id = ${org}`];
    if (f.status?.length) terms.push(oneOf('status', f.status, p));
    if (f.severity?.length) terms.push(oneOf('severity', f.severity, p));
    if (f.source !== undefined) terms.push(`source = ${p.add(f.source)}`);
    if (f.fingerprint !== undefined) terms.push(`id in (${byFingerprintSql(org, p.add(f.fingerprint))})`);
    if (f.integrationId !== undefined) terms.push(`integration_id = ${p.add(f.integrationId)}`);
    if (f.clientId !== undefined) terms.push(`client_id = ${p.add(f.clientId)}`);
    if (f.since !== undefined) terms.push(`created_at >= ${p.add(f.since)}`);
    if (f.until !== undefined) terms.push(`created_at < ${p.add(f.until)}`);
    // Literal, so that SQLite uses the partial index of flapping alerts (migration 0032).
    if (f.flapping !== undefined) terms.push(f.flapping ? 'flapping = 1' : 'flapping = 0');
    if (f.q) terms.push(`lower(title) like ${p.add(`%${escapeLike(f.q.toLowerCase())}%`)} escape '\\'`);
    for (const [k, v] of f.labels ?? []) terms.push(`${store.jsonTextSql('labels', p.add(k))} = ${p.add(v)}`);
    return terms.join(' and ');
  };

  return {
    page: (db: Kysely<DB>, orgId: string, f: AlertFilter, limit: number, after: Keyset | null) => {
      const p = sqlParams(store);
      return run<AlertListRow>(db, `select ${LIST_COLUMNS.join(', ')} from alerts where ${where(orgId, f, p)}${keysetSql(after, limit, p)}`, p);
    },
    /** Matching alerts: from the alert writer's counters when only statuses filter, else by counting rows. */
    async count(db: Kysely<DB>, orgId: string, f: AlertFilter): Promise<number> {
      const p = sqlParams(store);
      const text = byStatusOnly(f)
        ? `select coalesce(sum(n), 0) as n from alert_counts where org_id = ${p.add(orgId)}${f.status?.length ? ` and ${oneOf('status', f.status, p)}` : ''}`
        : `select count(*) as n from alerts where ${where(orgId, f, p)}`;
      return Number((await run<{ n: number | string }>(db, text, p))[0]?.n);
    },
    /** Up to `limit` ids of matching alerts, newest first (the list's order). */
    ids: async (db: Kysely<DB>, orgId: string, f: AlertFilter, limit: number): Promise<string[]> => {
      const p = sqlParams(store);
      return (await run<{ id: string }>(db, `select id from alerts where ${where(orgId, f, p)} order by created_at desc, id desc limit ${p.add(limit)}`, p)).map((r) => r.id);
    },
    /** A fingerprint's alerts in one integration, newest first: its state history (the open one and the closed ones, each from its index). */
    history: (db: Kysely<DB>, orgId: string, integrationId: string, fingerprint: string, limit: number) => {
      const p = sqlParams(store);
      return run<Pick<AlertRow, 'id' | 'created_at' | 'resolved_at'>>(db, `select id, created_at, resolved_at from alerts
        where id in (${byFingerprintSql(p.add(orgId), p.add(fingerprint))}) and integration_id = ${p.add(integrationId)}
        order by created_at desc, id desc limit ${p.add(limit)}`, p);
    },
    incidentNumber: async (db: Kysely<DB>, orgId: string, incidentId: string): Promise<number | null> =>
      (await db.selectFrom('incidents').select('number').where('org_id', '=', orgId).where('id', '=', incidentId).executeTakeFirst())?.number ?? null,
    // SQL text: every page reads its alert as it is now (a page by email and webhook, twice).
    get: async (db: Kysely<DB>, orgId: string, id: string): Promise<AlertRow | undefined> => (await runSql<AlertRow>(db, getText, [orgId, id]))[0],
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
