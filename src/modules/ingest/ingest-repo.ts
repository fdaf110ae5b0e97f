import { CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { PgPrepared, Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { OPEN_FINGERPRINT, type AlertRow } from '../alerts/alerts-repo.ts';
import type { IntegrationRow } from '../integrations/integrations-repo.ts';

/**
 * The statements of the ingest path, written out once as SQL text: building them with Kysely on every
 * request cost about a fifth of the server's time. SQLite runs them as prepared statements on the
 * connection itself (synchronously, see ingest-writer.ts); PostgreSQL sends the same text, which the pool's
 * connections parse once per text.
 */

/** The sender's status, which decides what happens to an alert already open with its fingerprint. */
export type SentStatus = 'firing' | 'acknowledged' | 'suppressed';

/** One alert of a payload as it is written: a row to upsert, or an open alert to resolve. */
export type WriteOp =
  | { kind: 'upsert'; row: AlertRow; sent: SentStatus; windowId: string | null }
  | { kind: 'resolve'; orgId: string; fingerprint: string; by: Resolver; at: number };

/** Who resolves: the integration whose sender said so, or the system for a sender that is not one (a heartbeat). */
export interface Resolver {
  type: 'integration' | 'system';
  id: string;
}

/** What a WriteOp returns: the upserted row, or the id of the resolved alert (null: none was open). */
export type OpResult = UpsertResult | string | null;

export interface SqliteStatements {
  upsert: (r: AlertRow, sent: SentStatus) => UpsertResult;
  resolve: (orgId: string, fingerprint: string, by: Resolver, at: number) => string | null;
}

export interface UpsertResult {
  id: string;
  org_id: string;
  fingerprint: string;
  status: string;
  occurrences: number;
}

const ALERT_COLUMNS = [
  'id', 'org_id', 'integration_id', 'client_id', 'incident_id', 'fingerprint', 'title', 'severity', 'status', 'source', 'description',
  'labels', 'annotations', 'payload', 'occurrences', 'last_seen_at', 'acknowledged_at', 'acknowledged_by_type', 'acknowledged_by_id',
  'resolved_at', 'resolved_by_type', 'resolved_by_id', 'suppression_id', 'created_at', 'updated_at',
] as const satisfies ReadonlyArray<keyof AlertRow>;

/** PostgreSQL's types of the columns, for `unnest` of one array per column. */
const PG_TYPES: Record<(typeof ALERT_COLUMNS)[number], string> = {
  id: 'text', org_id: 'text', integration_id: 'text', client_id: 'text', incident_id: 'text', fingerprint: 'text', title: 'text',
  severity: 'text', status: 'text', source: 'text', description: 'text', labels: 'jsonb', annotations: 'jsonb', payload: 'jsonb',
  occurrences: 'integer', last_seen_at: 'bigint', acknowledged_at: 'bigint', acknowledged_by_type: 'text', acknowledged_by_id: 'text',
  resolved_at: 'bigint', resolved_by_type: 'text', resolved_by_id: 'text', suppression_id: 'text', created_at: 'bigint', updated_at: 'bigint',
};


/**
 * Inserts new open alerts, or — where the organization already has an open alert with the fingerprint —
 * updates that one; the partial unique index decides which, atomically, even across instances. A row's
 * `occurrences` is how many times the request(s) sent it, so a fresh row returns exactly that and a matched
 * one more. `sent` decides what happens to an open alert: `firing` keeps its status (even when the new row
 * itself would be stored `suppressed` by a window); `acknowledged` / `suppressed` move it there, and it then
 * belongs to no window.
 */
function upsertSql(sent: SentStatus, rows: string): string {
  return `insert into alerts (${ALERT_COLUMNS.join(', ')}) ${rows}
    on conflict (org_id, fingerprint) where ${OPEN_FINGERPRINT} do update set
      occurrences = alerts.occurrences + excluded.occurrences, last_seen_at = excluded.last_seen_at,
      updated_at = excluded.updated_at, payload = excluded.payload
      ${sent === 'firing' ? '' : ', status = excluded.status, suppression_id = excluded.suppression_id'}
      ${sent === 'acknowledged' ? `, acknowledged_at = coalesce(alerts.acknowledged_at, excluded.acknowledged_at),
      acknowledged_by_type = coalesce(alerts.acknowledged_by_type, excluded.acknowledged_by_type),
      acknowledged_by_id = coalesce(alerts.acknowledged_by_id, excluded.acknowledged_by_id)` : ''}
    returning id, org_id, fingerprint, status, occurrences`;
}

const RESOLVE_SQL = (p: (i: number) => string) => `update alerts set status = 'resolved', resolved_at = ${p(1)}, resolved_by_type = ${p(5)},
    resolved_by_id = ${p(2)}, last_seen_at = ${p(1)}, updated_at = ${p(1)}
  where org_id = ${p(3)} and fingerprint = ${p(4)} and ${OPEN_FINGERPRINT} returning id`;

/** One version read per request; the token lookup reads the row and its organization's version in one snapshot. */
const VERSION_SQL = 'select version from config_versions where org_id = ?';
/** What identifies an integration: its ingest token, or the digest of one of its vendor-style keys (migration 0019). */
export type CredentialColumn = 'token' | 'routing_key_digest' | 'genie_key_digest';
const CREDENTIAL_SQL = (column: CredentialColumn, p: string) => `select i.*, coalesce((select v.version from config_versions v where v.org_id = i.org_id), 0) as config_version
  from integrations i where i.${column} = ${p}`;
const CREDENTIAL_COLUMNS: readonly CredentialColumn[] = ['token', 'routing_key_digest', 'genie_key_digest'];

const values = (p: (i: number) => string) => `values (${ALERT_COLUMNS.map((_, i) => p(i + 1)).join(', ')})`;
const rowParams = (r: AlertRow) => ALERT_COLUMNS.map((c) => r[c]);
const SENT: readonly SentStatus[] = ['firing', 'acknowledged', 'suppressed'];

/** The write statements prepared on a SQLite connection (the main thread's, or the ingest writer thread's). */
export function sqliteStatements(raw: DatabaseSync): SqliteStatements {
  const upserts = new Map(SENT.map((s) => [s, raw.prepare(upsertSql(s, values(() => '?')))]));
  const resolve = raw.prepare(RESOLVE_SQL((i) => `?${i}`));
  return {
    upsert: (r, sent) => (upserts.get(sent) as StatementSync).get(...rowParams(r)) as unknown as UpsertResult,
    resolve: (orgId, fingerprint, by, at) => (resolve.get(at, by.id, orgId, fingerprint, by.type) as { id: string } | undefined)?.id ?? null,
  };
}

/**
 * Version reads over a network round trip, shared: a read asked for while one is in flight waits for the
 * next, which reads every organization asked for meanwhile. Each request's read still starts after the
 * request arrived, so it sees every change committed before.
 */
function sharedReads(readMany: (orgIds: string[]) => Promise<Map<string, number>>): (orgId: string) => Promise<number> {
  let waiting = new Map<string, Array<{ resolve: (v: number) => void; reject: (e: unknown) => void }>>();
  let running = false;
  async function pump(): Promise<void> {
    running = true;
    while (waiting.size > 0) {
      const batch = waiting;
      waiting = new Map();
      try {
        const found = await readMany([...batch.keys()]);
        for (const [orgId, ws] of batch) for (const w of ws) w.resolve(found.get(orgId) ?? 0);
      } catch (error) {
        for (const ws of batch.values()) for (const w of ws) w.reject(error);
      }
    }
    running = false;
  }
  return (orgId) => new Promise((resolve, reject) => {
    const ws = waiting.get(orgId);
    if (ws) ws.push({ resolve, reject });
    else waiting.set(orgId, [{ resolve, reject }]);
    if (!running) void pump();
  });
}

export interface IngestRepo {
  /** The organization's config version (0 before anything bumped it). */
  version(orgId: string): number | Promise<number>;
  /** The integration behind a credential, with its organization's version read in the same snapshot. */
  byCredential(column: CredentialColumn, value: string): Promise<{ row: IntegrationRow; version: number } | null>;
}

type Found = IntegrationRow & { config_version: number };
function withVersion(r: Found | undefined): { row: IntegrationRow; version: number } | null {
  if (!r) return null;
  const { config_version, ...row } = r;
  return { row, version: Number(config_version) };
}

export function ingestRepo(store: Store): IngestRepo & {
  /** SQLite: the statements, prepared once, to run synchronously on the connection (see ingest-writer.ts). */
  sqlite: SqliteStatements | null;
  /**
   * One statement through Kysely's connection or transaction `db`: PostgreSQL's ingest path, and on either
   * store a writer that must join its own transaction (the heartbeat checker).
   */
  upsert: (db: Kysely<DB>, r: AlertRow, sent: SentStatus) => Promise<UpsertResult>;
  resolve: (db: Kysely<DB>, orgId: string, fingerprint: string, by: Resolver, at: number) => Promise<string | null>;
  /** PostgreSQL: many firing alerts (distinct per organization and fingerprint) in one statement of its own. */
  upsertMany: (rows: AlertRow[]) => Promise<UpsertResult[]>;
} {
  const pg = (i: number) => `$${i}`;
  const run = async <R>(db: Kysely<DB>, text: string, params: unknown[]): Promise<R[]> => (await db.executeQuery<R>(CompiledQuery.raw(text, params))).rows;
  /** Upsert and resolve as statements through Kysely, with the dialect's numbered placeholders. */
  const through = (p: (i: number) => string) => {
    const upserts = new Map(SENT.map((s) => [s, upsertSql(s, values(p))]));
    const resolveText = RESOLVE_SQL(p);
    return {
      upsert: async (db: Kysely<DB>, r: AlertRow, sent: SentStatus) => (await run<UpsertResult>(db, upserts.get(sent) as string, rowParams(r)))[0] as UpsertResult,
      resolve: async (db: Kysely<DB>, orgId: string, fingerprint: string, by: Resolver, at: number) =>
        (await run<{ id: string }>(db, resolveText, [at, by.id, orgId, fingerprint, by.type]))[0]?.id ?? null,
    };
  };
  const raw = store.sqlite?.raw;
  if (store.sqlite && raw) {
    const sqlite = store.sqlite;
    const prepared = new Map<string, StatementSync>();
    const statement = (text: string) => {
      let s = prepared.get(text);
      if (!s) prepared.set(text, (s = raw.prepare(text)));
      return s;
    };
    const versionText = VERSION_SQL;
    const credentialText = new Map(CREDENTIAL_COLUMNS.map((c) => [c, CREDENTIAL_SQL(c, '?')]));
    return {
      version: (orgId) => sqlite.read(() => Number((statement(versionText).get(orgId) as { version: number } | undefined)?.version ?? 0)),
      byCredential: async (column, value) => withVersion(await sqlite.read(() => statement(credentialText.get(column) as string).get(value) as Found | undefined)),
      sqlite: sqliteStatements(raw),
      ...through((i) => `?${i}`),
      upsertMany: () => Promise.reject(new Error('SQLite ingest runs on the connection')),
    };
  }

  const manyText = upsertSql('firing', `select * from unnest(${ALERT_COLUMNS.map((c, i) => `$${i + 1}::${PG_TYPES[c]}[]`).join(', ')})`);
  const prepared = store.pg as PgPrepared;
  return {
    version: sharedReads(async (orgIds) => new Map((await run<{ org_id: string; version: number }>(store.db,
      'select org_id, version from config_versions where org_id = any($1)', [orgIds])).map((r) => [r.org_id, Number(r.version)]))),
    byCredential: async (column, value) => withVersion((await run<Found>(store.db, CREDENTIAL_SQL(column, '$1'), [value]))[0]),
    sqlite: null,
    ...through(pg),
    // Prepared: parsing and planning this statement cost PostgreSQL ~0.3 ms per batch, as much as ~8 of its rows.
    upsertMany: (rows) => prepared.run<UpsertResult>('alertflow_ingest_upsert_many', manyText, ALERT_COLUMNS.map((c) => rows.map((r) => r[c]))),
  };
}
export type IngestRepoImpl = ReturnType<typeof ingestRepo>;
