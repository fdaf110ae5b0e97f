import type { SQLInputValue } from 'node:sqlite';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { runSql } from '../../db/sql-text.ts';
import type { Store } from '../../db/database.ts';
import type { AnalyticsCounts, DB } from '../../db/schema.ts';
import { OPEN_FINGERPRINT } from '../alerts/alerts-repo.ts';
import { COLUMNS, MEASURES, type CountRow, type Deltas, type Measure } from './analytics-fns.ts';
import { pgRollupStatement, sqliteRollupStatements } from './analytics-sql.ts';

export type CountTable = 'analytics_hourly' | 'analytics_daily';
export type IncidentFactRow = DB['analytics_incidents'];
export type Duration = 'ack_ms' | 'resolve_ms' | 'page_ms';
/** An incident's opening, durations (null: not reached) and value of the dimension asked for. */
export type IncidentTimes = [openedAt: number, ack: number | null, resolve: number | null, page: number | null, key: string];

export function analyticsRepo(store: Pick<Store, 'dialect'>) {
  return {
    /**
     * Adds what a batch of changes counted, in the caller's transaction (analytics-sql.ts): on SQLite one prepared
     * statement a row (no round trips to save), on PostgreSQL one statement for all tables.
     */
    async apply(db: Kysely<DB>, d: Deltas): Promise<void> {
      if (store.dialect === 'sqlite') {
        for (const s of sqliteRollupStatements(d)) await runSql(db, s.text, s.params);
        return;
      }
      const s = pgRollupStatement(d);
      if (s) await runSql(db, s.text, s.params);
    },

    /** An incident's row, once (a retried workflow run does not count it twice). */
    openIncident: (db: Kysely<DB>, row: IncidentFactRow) =>
      db.insertInto('analytics_incidents').values(row).onConflict((oc) => oc.column('incident_id').doNothing()).execute(),

    /** Fills one of the incident's durations the first time it happens (the first acknowledgement, …). */
    incidentReached: (db: Kysely<DB>, orgId: string, incidentId: string, column: Duration, at: number) =>
      db.updateTable('analytics_incidents').set({ [column]: sql<number>`${at} - opened_at` })
        .where('org_id', '=', orgId).where('incident_id', '=', incidentId).where(column, 'is', null).execute(),

    /**
     * Counted rows of one dimension (and one of its values, when `key` is given) in [from, to). With `edges` (weeks or
     * months), summed per bucket in the database: a year by month reads 365 days of rows and returns 12.
     */
    async counts(db: Kysely<DB>, table: CountTable, orgId: string, dim: string, key: string | null, from: number, to: number, edges?: readonly number[]): Promise<CountRow[]> {
      const time = table === 'analytics_hourly' ? 'hour' : 'day';
      const bucket = edges
        ? sql<number>`case ${sql.join(edges.slice(1).map((e, i) => sql`when ${sql.ref(time)} < ${sql.lit(e)} then ${sql.lit(edges[i] as number)}`), sql` `)} else ${sql.lit(edges[edges.length - 1] as number)} end`
        : sql<number>`${sql.ref(time)}`;
      const measures = MEASURES.map((m) => (edges ? sql<number>`sum(${sql.ref(COLUMNS[m])})` : sql<number>`${sql.ref(COLUMNS[m])}`).as(COLUMNS[m]));
      let q = db.selectFrom(table as 'analytics_hourly').select([bucket.as('time'), 'key', ...measures])
        .where('org_id', '=', orgId).where('dim', '=', dim).where(sql.ref(time), '>=', from).where(sql.ref(time), '<', to);
      if (key !== null) q = q.where('key', '=', key);
      const rows = await (edges ? q.groupBy([sql`1`, 'key']) : q).execute();
      return rows.map((r) => ({
        dim, time: Number(r.time), key: r.key,
        alerts: Number(r.alerts), occurrences: Number(r.occurrences), quickResolves: Number(r.quick_resolves),
        incidents: Number(r.incidents), pages: Number(r.pages), flaps: Number(r.flaps),
      }));
    },

    /**
     * The alerts that did most of `measure` over the local days [from, to), summed per integration and fingerprint:
     * whole months from the monthly rows, the days around them from the daily rows. Ranked first on the rows where
     * the measure is not 0, reading only it (a year's rows by pages are a third of them: bench/analytics.ts); then
     * every measure of just the alerts ranked.
     */
    async noisy(db: Kysely<DB>, orgId: string, range: { months: [number, number] | null; days: Array<[number, number]> }, measure: Measure, limit: number, clientId: string | null) {
      const col = COLUMNS[measure];
      type Part = SelectQueryBuilder<DB, 'analytics_noisy_daily', DB['analytics_noisy_daily']>;
      const union = (columns: readonly string[], where: (q: Part) => Part) => {
        const part = (table: 'analytics_noisy_daily' | 'analytics_noisy_monthly', time: 'day' | 'month', [from, to]: [number, number]) => {
          let q = (db.selectFrom(table as 'analytics_noisy_daily').select(columns as never) as unknown as Part).where('org_id', '=', orgId)
            .where(sql.ref(time), '>=', from).where(sql.ref(time), '<', to);
          if (clientId !== null) q = q.where('client_id', '=', clientId);
          return where(q);
        };
        const parts = [...range.days.map((d) => part('analytics_noisy_daily', 'day', d)), ...(range.months ? [part('analytics_noisy_monthly', 'month', range.months)] : [])];
        return parts.slice(1).reduce((u, p) => u.unionAll(p), parts[0] as ReturnType<typeof part>).as('u');
      };
      const total = sql<number>`sum(${sql.ref(`u.${col}`)})`;
      const top = await db.selectFrom(union(['integration_id', 'fingerprint', col], (q) => q.where(sql.ref(col), '>', 0)))
        .select(['u.integration_id', 'u.fingerprint']).groupBy(['u.integration_id', 'u.fingerprint'])
        .orderBy(total, 'desc').orderBy('u.fingerprint').limit(limit).execute();
      if (top.length === 0) return [];
      // The same fingerprint in another integration may come back too: only the ranked pairs are kept, in rank order.
      const rows = await db.selectFrom(union(['integration_id', 'fingerprint', 'title', 'client_id', ...MEASURES.map((m) => COLUMNS[m])],
        (q) => q.where('fingerprint', 'in', [...new Set(top.map((t) => t.fingerprint))])))
        .select(['u.integration_id', 'u.fingerprint', sql<string>`max(u.title)`.as('title'), sql<string>`max(u.client_id)`.as('client_id'),
          ...MEASURES.map((m) => sql<number>`sum(${sql.ref(`u.${COLUMNS[m]}`)})`.as(COLUMNS[m]))])
        .groupBy(['u.integration_id', 'u.fingerprint']).execute();
      const byPair = new Map(rows.map((r) => [`${r.integration_id}\u0000${r.fingerprint}`, r]));
      return top.map((t) => {
        const r = byPair.get(`${t.integration_id}\u0000${t.fingerprint}`) as (typeof rows)[number];
        return {
          integrationId: r.integration_id, fingerprint: r.fingerprint, title: r.title, clientId: r.client_id,
          ...Object.fromEntries(MEASURES.map((m) => [m, Number((r as Record<string, unknown>)[COLUMNS[m]])])) as Record<Measure, number>,
        };
      });
    },

    /** Pages per person over the local days [from, to), split by working hours. */
    async pages(db: Kysely<DB>, orgId: string, from: number, to: number, clientId: string | null) {
      let q = db.selectFrom('analytics_pages')
        .select(['user_id', sql<number>`sum(working)`.as('working'), sql<number>`sum(off_hours)`.as('off_hours')])
        .where('org_id', '=', orgId).where('day', '>=', from).where('day', '<', to);
      if (clientId !== null) q = q.where('client_id', '=', clientId);
      const rows = await q.groupBy('user_id').execute();
      return rows.map((r) => ({ userId: r.user_id, working: Number(r.working), offHours: Number(r.off_hours) }));
    },

    /**
     * Incidents opened in [from, to): when, their durations, and their value of `dim` (a label's read in the
     * database, not parsed here; null `dim`: none). As arrays: SQLite makes them at half the CPU of objects, which
     * for a year's 50,000 rows is most of the answer's time (bench/analytics.ts).
     */
    incidents: async (store: Pick<Store, 'jsonText' | 'dialect' | 'sqlite'>, db: Kysely<DB>, orgId: string, from: number, to: number, clientId: string | null, dim: string | null): Promise<IncidentTimes[]> => {
      const label = dim?.startsWith('label:') ? dim.slice('label:'.length) : null;
      // SQLite: json_extract with the key quoted in the path (analytics label keys hold no quote or backslash), several
      // times faster per row than the json_each lookup of store.jsonText, which takes any key.
      const labelValue = (k: string) => (store.dialect === 'sqlite' ? sql`json_extract(labels, ${`$."${k}"`})` : store.jsonText('labels', k));
      const key = dim === null ? sql<string>`''`
        : label !== null ? sql<string>`coalesce(${labelValue(label)}, '')`
          : sql<string>`${sql.ref(dim === 'client' ? 'client_id' : dim === 'integration' ? 'integration_id' : 'severity')}`;
      let q = db.selectFrom('analytics_incidents').select(['opened_at', 'ack_ms', 'resolve_ms', 'page_ms', key.as('key')])
        .where('org_id', '=', orgId).where('opened_at', '>=', from).where('opened_at', '<', to);
      if (clientId !== null) q = q.where('client_id', '=', clientId);
      const sqlite = store.sqlite;
      if (sqlite === null) return (await q.execute()).map((r) => [r.opened_at, r.ack_ms, r.resolve_ms, r.page_ms, r.key]);
      const { sql: text, parameters } = q.compile();
      return sqlite.read((raw) => {
        const statement = raw.prepare(text);
        statement.setReturnArrays(true);
        return statement.all(...(parameters as SQLInputValue[])) as unknown as IncidentTimes[];
      });
    },

    /** The client board's first reads: every client, its open critical and high alerts, its open incidents. */
    async board(db: Kysely<DB>, orgId: string, maxClients: number) {
      const [clients, alerts, incidents] = await Promise.all([
        db.selectFrom('clients').select(['id', 'name', 'slug']).where('org_id', '=', orgId).orderBy('name').orderBy('id').limit(maxClients).execute(),
        db.selectFrom('alerts').select(['client_id', 'severity', sql<number>`count(*)`.as('n')])
          // The open alerts' partial index (its predicate repeated word for word, so SQLite reads it), whatever the
          // planner's statistics say of statuses; suppressed ones and those without a client are dropped after it.
          .where('org_id', '=', orgId).where(sql<boolean>`${sql.raw(OPEN_FINGERPRINT)}`).where('status', '<>', 'suppressed')
          .where('severity', 'in', ['critical', 'high'])
          .groupBy(['client_id', 'severity']).execute(),
        db.selectFrom('incidents').select(['client_id', sql<number>`count(*)`.as('n')])
          .where('org_id', '=', orgId).where(sql<boolean>`status in ('triggered', 'acknowledged')`).where('client_id', 'is not', null)
          .groupBy('client_id').execute(),
      ]);
      return {
        clients,
        open: alerts.flatMap((r) => (r.client_id === null ? [] : [{ clientId: r.client_id, severity: r.severity, n: Number(r.n) }])),
        incidents: new Map(incidents.map((r) => [r.client_id as string, Number(r.n)])),
      };
    },

    /** The client's newest alert (one index seek). */
    lastAlert: (db: Kysely<DB>, orgId: string, clientId: string) =>
      db.selectFrom('alerts').select(['id', 'title', 'severity', 'created_at']).where('org_id', '=', orgId).where('client_id', '=', clientId)
        .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst(),

    /** A member's own zone (null: none set, or no such member). */
    userZone: async (db: Kysely<DB>, orgId: string, userId: string): Promise<string | null> =>
      (await db.selectFrom('users').select('timezone').where('org_id', '=', orgId).where('id', '=', userId).executeTakeFirst())?.timezone ?? null,

    /** The organization's zone and rolled-up label keys. */
    settings: (db: Kysely<DB>, orgId: string) =>
      db.selectFrom('orgs').select(['timezone', 'analytics_labels']).where('id', '=', orgId).executeTakeFirst(),

    /** Names of the organization's clients, integrations and members, for the groups a response lists. */
    names: async (db: Kysely<DB>, orgId: string, table: 'clients' | 'integrations' | 'users' | 'suppression_windows', ids: string[]): Promise<Map<string, string>> => {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom(table as 'clients').select(['id', 'name']).where('org_id', '=', orgId).where('id', 'in', ids).execute();
      return new Map(rows.map((r) => [r.id, r.name]));
    },
  };
}
export type AnalyticsRepo = ReturnType<typeof analyticsRepo>;
