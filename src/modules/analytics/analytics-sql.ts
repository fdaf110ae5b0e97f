import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { PgRun } from '../../db/database.ts';
import { COLUMNS, MEASURES, rollup, sortedRows, type CountRow, type Deltas, type Fact, type NoisyRow, type OrgAnalytics, type PageRow } from './analytics-fns.ts';

/**
 * The rollups' upserts written out once as SQL text, for every writer of counts: SQLite runs one prepared statement
 * a row (the main thread's or the writer thread's connection; no round trip to save), PostgreSQL one statement for
 * all tables, each table's rows as arrays (a round trip costs more than the rows). Every measure adds to what is
 * stored, so concurrent writers never overwrite each other; tables go in one order and rows in key order, so two
 * writers lock shared rows in the same order.
 */

interface Spec<R> {
  table: string;
  /** Columns in insert order, with PostgreSQL's type of each for `unnest`. */
  columns: ReadonlyArray<readonly [string, 'text' | 'bigint' | 'integer']>;
  key: readonly string[];
  /** The SET list on conflict. */
  set: string;
  params: (r: R & { orgId: string }) => unknown[];
}

const counts = MEASURES.map((m) => [COLUMNS[m], 'integer'] as const);
const addAll = (table: string) => MEASURES.map((m) => `${COLUMNS[m]} = ${table}.${COLUMNS[m]} + excluded.${COLUMNS[m]}`).join(', ');
const countParams = (r: Partial<Record<(typeof MEASURES)[number], number>>) => MEASURES.map((m) => r[m] ?? 0);

const countSpec = (table: 'analytics_hourly' | 'analytics_daily', time: 'hour' | 'day'): Spec<CountRow> => ({
  table,
  columns: [['org_id', 'text'], ['dim', 'text'], [time, 'bigint'], ['key', 'text'], ...counts],
  key: ['org_id', 'dim', time, 'key'],
  set: addAll(table),
  params: (r) => [r.orgId, r.dim, r.time, r.key, ...countParams(r)],
});

const noisySpec = (table: 'analytics_noisy_daily' | 'analytics_noisy_monthly', time: 'day' | 'month'): Spec<NoisyRow> => ({
  table,
  columns: [['org_id', 'text'], [time, 'bigint'], ['integration_id', 'text'], ['fingerprint', 'text'], ['client_id', 'text'], ['title', 'text'], ...counts],
  key: ['org_id', time, 'integration_id', 'fingerprint', 'client_id'],
  set: `${addAll(table)}, title = excluded.title`,
  params: (r) => [r.orgId, r.day, r.integrationId, r.fingerprint, r.clientId, r.title, ...countParams(r)],
});

const pagesSpec: Spec<PageRow> = {
  table: 'analytics_pages',
  columns: [['org_id', 'text'], ['day', 'bigint'], ['user_id', 'text'], ['client_id', 'text'], ['working', 'integer'], ['off_hours', 'integer']],
  key: ['org_id', 'day', 'user_id', 'client_id'],
  set: 'working = analytics_pages.working + excluded.working, off_hours = analytics_pages.off_hours + excluded.off_hours',
  params: (r) => [r.orgId, r.day, r.userId, r.clientId, r.working, r.offHours],
};

const SPECS = {
  hourly: countSpec('analytics_hourly', 'hour'),
  daily: countSpec('analytics_daily', 'day'),
  noisy: noisySpec('analytics_noisy_daily', 'day'),
  noisyMonthly: noisySpec('analytics_noisy_monthly', 'month'),
  pages: pagesSpec,
} as const;

type Part = keyof typeof SPECS;
const PARTS = Object.keys(SPECS) as Part[];

const upsert = (s: Spec<never>, rows: string) =>
  `insert into ${s.table} (${s.columns.map(([c]) => c).join(', ')}) ${rows} on conflict (${s.key.join(', ')}) do update set ${s.set}`;

/** Each part's rows as statement parameters, in key order. */
function rowsOf(d: Deltas): Array<{ part: Part; spec: Spec<never>; params: unknown[][] }> {
  return PARTS.map((part) => {
    const spec = SPECS[part] as unknown as Spec<Record<string, unknown>>;
    return { part, spec: spec as Spec<never>, params: sortedRows(d[part] as Map<string, Record<string, unknown> & { orgId: string }>).map((r) => spec.params(r)) };
  }).filter((p) => p.params.length > 0);
}

const SETTINGS_SQL = (p: string) => `select id, timezone, analytics_labels from orgs where id = ${p}`;
const settingsOf = (r: { timezone: string; analytics_labels: string } | undefined): OrgAnalytics =>
  ({ zone: r?.timezone ?? 'UTC', labels: r ? JSON.parse(r.analytics_labels) as string[] : [] });

/** SQLite: each table's upsert of one row, numbered parameters. */
const SQLITE_UPSERTS = new Map(PARTS.map((part) => {
  const s = SPECS[part] as Spec<never>;
  return [part, upsert(s, `values (${s.columns.map((_, i) => `?${i + 1}`).join(', ')})`)];
}));

/** SQLite: counts facts inside the caller's transaction with statements prepared on its connection, one run per row. */
export function sqliteRollups(raw: DatabaseSync) {
  const statements = new Map([...SQLITE_UPSERTS].map(([part, text]) => [part, raw.prepare(text)]));
  const settings = raw.prepare(SETTINGS_SQL('?1'));
  return {
    record(facts: readonly Fact[]): void {
      if (facts.length === 0) return;
      const orgs = new Map<string, OrgAnalytics>();
      const org = (id: string) => {
        let o = orgs.get(id);
        if (!o) orgs.set(id, (o = settingsOf(settings.get(id) as { timezone: string; analytics_labels: string } | undefined)));
        return o;
      };
      for (const { part, params } of rowsOf(rollup(facts, org))) {
        const st = statements.get(part) as StatementSync;
        for (const p of params) st.run(...(p as never[]));
      }
    },
  };
}

/** A statement's text and its parameters. */
export interface Statement {
  text: string;
  params: unknown[];
}

/** SQLite: the deltas as one upsert per row, for a caller on Kysely's connection. */
export function sqliteRollupStatements(d: Deltas): Statement[] {
  return rowsOf(d).flatMap(({ part, params }) => params.map((p) => ({ text: SQLITE_UPSERTS.get(part) as string, params: p })));
}

// One text per set of tables written (at most 2^5), made once.
const pgTexts = new Map<string, string>();

/**
 * PostgreSQL: the deltas in one statement, a data-modifying WITH per table (in PARTS order), each table's rows as
 * one array per column; null when there is nothing to count.
 */
export function pgRollupStatement(d: Deltas): Statement | null {
  const parts = rowsOf(d);
  if (parts.length === 0) return null;
  const key = parts.map((p) => PARTS.indexOf(p.part)).join('');
  let made = pgTexts.get(key);
  if (made === undefined) {
    let n = 0;
    const ctes = parts.map(({ spec }, i) =>
      `t${i} as (${upsert(spec, `select * from unnest(${spec.columns.map(([, type]) => `$${++n}::${type}[]`).join(', ')})`)})`);
    pgTexts.set(key, (made = `with ${ctes.join(', ')} select 1`));
  }
  return { text: made, params: parts.flatMap(({ spec, params }) => spec.columns.map((_, i) => params.map((p) => p[i]))) };
}

/** PostgreSQL's group commit: counts facts in its transaction, the organizations' settings read in one statement and the counts written in one. */
export async function pgRecord(run: PgRun, facts: readonly Fact[]): Promise<void> {
  if (facts.length === 0) return;
  const ids = [...new Set(facts.map((f) => f.alert.orgId))];
  const rows = await run<{ id: string; timezone: string; analytics_labels: string }>(SETTINGS_SQL('any($1)'), [ids]);
  const orgs = new Map(rows.map((r) => [r.id, settingsOf(r)]));
  const statement = pgRollupStatement(rollup(facts, (id) => orgs.get(id) ?? settingsOf(undefined)));
  if (statement) await run(statement.text, statement.params);
}
