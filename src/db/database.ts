import { Kysely, PostgresDialect, SqliteAdapter, SqliteDialect, sql, type DialectAdapter, type KyselyConfig, type RawBuilder, type Transaction, type TransactionBuilder } from 'kysely';
import type { StoreConfig } from '../config.ts';
import type { DB } from './schema.ts';
import type { DatabaseSync } from 'node:sqlite';
import { openSqlite } from './sqlite-database.ts';

export type Dialect = 'sqlite' | 'postgres';

/**
 * The store: one Kysely instance plus the few things that differ between SQLite and PostgreSQL.
 * Every dialect difference lives here so repositories stay dialect-free.
 */
export interface Store {
  readonly db: Kysely<DB>;
  readonly dialect: Dialect;
  /** JSON columns come back as text from SQLite and as parsed values from PostgreSQL jsonb. */
  readJson<T>(value: unknown): T;
  /** The text value of a top-level object key, the key taken literally (never as a JSON path). */
  jsonText(column: string, key: string): RawBuilder<unknown>;
  /** jsonText in SQL text: `key` is SQL text too, usually a placeholder. */
  jsonTextSql(column: string, key: string): string;
  /** The placeholder of parameter `i` (from 1) in SQL text: `?i` on SQLite, `$i` on PostgreSQL. */
  param(i: number): string;
  ping(): Promise<void>;
  /**
   * A transaction of background work that is safe to run again (job polls, delivery claims and records, workflow
   * runs, the outbox relay). On SQLite its commit does not wait for the disk: it survives the process dying, and a
   * power cut can take it only within the next flush, 0.1 s later (docs/operating.md, "Durability").
   */
  background<T>(work: (trx: Kysely<DB>) => Promise<T>): Promise<T>;
  /** PostgreSQL's connection pool (clients open, idle, and callers waiting for one); none for SQLite. */
  poolUsage(): { total: number; idle: number; waiting: number } | undefined;
  close(): Promise<void>;
  /** SQLite only (null on PostgreSQL): the connection itself, for the ingest path's synchronous prepared statements. */
  readonly sqlite: SqliteConnection | null;
  /** PostgreSQL only (null on SQLite): the ingest path's statements on the pool directly, without Kysely. */
  readonly pg: PgPrepared | null;
}

/** Runs SQL text with its parameters; prepared on the connection once it runs often (namedStatements). */
export type PgRun = <R>(text: string, params: unknown[]) => Promise<R[]>;

export interface PgPrepared {
  /** Runs `text` on its own (autocommitted) on a pooled connection. */
  run: PgRun;
  /** Runs `fn` in one transaction on one pooled connection. */
  transaction<T>(fn: (run: PgRun) => Promise<T>): Promise<T>;
}

export interface SqliteConnection {
  /** The database file (':memory:' for a private in-memory database that no other connection can open). */
  readonly file: string;
  readonly raw: DatabaseSync;
  /**
   * Runs `fn` holding the connection, so that no Kysely statement or transaction interleaves with it; `fn` is
   * synchronous, so nothing else runs on the connection until it returns either.
   */
  exclusive<T>(fn: (raw: DatabaseSync) => T): Promise<T>;
  /**
   * Runs a read at once, unless a transaction is open on the connection (one that a Kysely caller is awaiting
   * in): the read would see its uncommitted writes, so it waits for the connection instead.
   */
  read<T>(fn: (raw: DatabaseSync) => T): T | Promise<T>;
}

const INT8_OID = 20;

/**
 * SQLite does have transactional DDL, but Kysely's adapter says it does not, so its migrator would run
 * without a transaction and without a lock: two processes starting on one fresh file both create the
 * tables and one fails. Saying so makes the migrator run in one transaction (BEGIN IMMEDIATE, see
 * sqlite-database.ts), which serializes processes migrating the same file.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
class MigratableSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/** What each open transaction runs once it has committed (see `afterCommit`). */
const commitHooks = new WeakMap<Transaction<DB>, Array<() => void>>();

/**
 * Kysely whose transactions can be told what to do once they have committed: a writer of alerts wakes the
 * outbox relay and the live stream then, not before (they would read nothing yet) and not after a rollback.
 */
class CommitHookedKysely extends Kysely<DB> {
  constructor(config: KyselyConfig) {
    super(config);
  }

  override transaction(): TransactionBuilder<DB> {
    return hooked(super.transaction());
  }
}

/** A transaction builder whose transactions run their `afterCommit` hooks once committed. */
function hooked(builder: TransactionBuilder<DB>): TransactionBuilder<DB> {
  const execute = builder.execute.bind(builder);
  return Object.assign(builder, {
    async execute<T>(callback: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
      const hooks: Array<() => void> = [];
      const result = await execute((trx) => {
        commitHooks.set(trx, hooks);
        return callback(trx);
      });
      for (const hook of hooks) hook();
      return result;
    },
  });
}

/**
 * Runs `fn` once what `db` wrote is committed: at once when `db` is not a transaction (its statements
 * committed as they ran), else after the transaction commits (never, if it rolls back).
 */
export function afterCommit(db: Kysely<DB>, fn: () => void): void {
  if (!db.isTransaction) return fn();
  const hooks = commitHooks.get(db as Transaction<DB>);
  if (!hooks) throw new Error('afterCommit: a transaction not opened through the store');
  if (!hooks.includes(fn)) hooks.push(fn);
}

/** Each SQL text's statement name, made once per process; `seen` counts its runs until it is named. */
const statementNames = new Map<string, { name: string | null; seen: number }>();
let namedCount = 0;
/** A text is prepared once it has run this often: a hot path's statements are, one-off texts are not. */
const HOT_AFTER = 3;
/** At most this many prepared statements per connection (texts with lists of varying length are many). */
const PREPARED_PER_CONNECTION = 200;

/** PostgreSQL refusing a prepared statement whose result columns changed (a migration altered its table). */
const isStaleStatement = (err: unknown): boolean => (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test((err as Error).message);

/**
 * Statements run often (Kysely's, runSql's and PgPrepared's, with parameters) become named prepared statements on each
 * connection, so PostgreSQL parses and plans them once per connection instead of on every run: 16–21 % more
 * pages a second on PostgreSQL (docs/benchmarks.md, "Alert to page: latency and the knee"). When a migration changes
 * the columns of a table under a prepared `select *` (`alertflow migrate` while older instances still run), that
 * statement fails once with PostgreSQL's "cached plan must not change result type"; the connection then prepares
 * its statements afresh.
 */
function namedStatements(client: { query: (...args: unknown[]) => unknown }): void {
  const query = client.query.bind(client);
  let prepared = new Set<string>();
  let generation = 0;
  client.query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (typeof config !== 'string' || !Array.isArray(values) || values.length === 0 || callback !== undefined) return query(config, values, callback);
    let known = statementNames.get(config);
    if (known === undefined) statementNames.set(config, (known = { name: null, seen: 0 }));
    if (known.name === null && ++known.seen >= HOT_AFTER) known.name = `af${++namedCount}`;
    const name = known.name === null ? null : `${known.name}_${generation}`;
    if (name === null || (!prepared.has(name) && prepared.size >= PREPARED_PER_CONNECTION)) return query(config, values);
    prepared.add(name);
    return (query({ name, text: config, values }) as Promise<unknown>).catch((err: unknown) => {
      if (isStaleStatement(err)) {
        generation += 1;
        prepared = new Set();
      }
      throw err;
    });
  };
}

/** Opens the configured store; the PostgreSQL driver is loaded only when PostgreSQL is used. */
export async function createStore(config: StoreConfig): Promise<Store> {
  if (config.kind === 'sqlite') {
    const { database, raw, relaxed } = openSqlite(config.file);
    const db = new CommitHookedKysely({ dialect: new MigratableSqliteDialect({ database }) });
    const exclusive = <T,>(fn: (r: DatabaseSync) => T): Promise<T> => db.connection().execute(async () => fn(raw));
    // Holding the connection from before BEGIN to after COMMIT: no other transaction commits at the relaxed level.
    const background: Store['background'] = (work) => db.connection().execute((conn) => relaxed(() => hooked(conn.transaction()).execute(work)));
    return { ...makeStore(db, 'sqlite', { file: config.file, raw, exclusive, read: (fn) => (raw.isTransaction ? exclusive(fn) : fn(raw)) }), background };
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: config.url,
    max: 20,
    // A connection attempt to a database that is down fails at once; one that hangs is given up on, not waited on forever.
    connectionTimeoutMillis: 5000,
    // Timestamps are epoch milliseconds in bigint columns; they fit a JS number exactly.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // pg-pool takes its idle listener off a client while it is checked out, so a connection dropped between two
  // queries of a transaction (a database restart) would emit 'error' with nobody listening and end the process.
  // The failure still reaches the caller through its next query, and release() discards the broken client.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    namedStatements(client);
  });
  const db = new CommitHookedKysely({ dialect: new PostgresDialect({ pool }) });
  const prepared: PgPrepared = {
    // A checked-out client's query, not pool.query: that one passes a callback, which namedStatements leaves unnamed.
    async run(text, values) {
      const client = await pool.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        client.release();
      }
    },
    async transaction(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('begin');
        const result = await fn(async (text, values) => (await client.query(text, values)).rows);
        await client.query('commit');
        return result;
      } catch (err) {
        // A connection that cannot even roll back is broken: the pool discards it instead of handing it out again.
        await client.query('rollback').catch((e: unknown) => { broken = e as Error; });
        throw err;
      } finally {
        client.release(broken);
      }
    },
  };
  return makeStore(db, 'postgres', null, prepared, () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }));
}

function makeStore(db: Kysely<DB>, dialect: Dialect, sqlite: SqliteConnection | null, pg: PgPrepared | null = null, poolUsage: Store['poolUsage'] = () => undefined): Store {
  let closed: Promise<void> | undefined;
  // SQLite's `->>` reads a text key as a JSON path (`$x` is an error, `a"b` never matches); json_each does not.
  const jsonTextSql = dialect === 'sqlite'
    ? (column: string, key: string) => `(select value from json_each(${column}) where key = ${key})`
    : (column: string, key: string) => `${column} ->> ${key}`;
  return {
    db,
    dialect,
    sqlite,
    pg,
    readJson: <T,>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T,
    jsonText: (column, key) => {
      const [before, after] = jsonTextSql(column, '\u0000').split('\u0000') as [string, string];
      return sql`${sql.raw(before)}${key}${sql.raw(after)}`;
    },
    jsonTextSql,
    param: dialect === 'sqlite' ? (i) => `?${i}` : (i) => `$${i}`,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    background: (work) => db.transaction().execute(work),
    poolUsage,
    // Idempotent: shutdown paths may both close the store (PostgreSQL's pool refuses a second end()).
    close: () => (closed ??= db.destroy()),
  };
}

/** Runs `fn` in a transaction, joining the caller's when `db` already is one (services compose). */
export function inTransaction<T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/**
 * A write refused by a unique constraint: PostgreSQL's unique_violation (23505, optionally the named
 * constraint), SQLite's SQLITE_CONSTRAINT_UNIQUE (2067; its message names columns, not constraints).
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: unknown; constraint?: unknown; errcode?: unknown };
  if (e?.code === '23505') return constraint === undefined || e.constraint === constraint;
  return Number(e?.errcode) === 2067;
}

/** Connection-level failures of PostgreSQL (class 08, shutdown 57P01–57P03, and the driver's own socket errors). */
const PG_UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03']);
const PG_UNAVAILABLE_MESSAGES = /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed|not queryable/i;
/** SQLite primary result codes meaning "not now" rather than "wrong": BUSY, LOCKED, IOERR, FULL, CANTOPEN. */
const SQLITE_UNAVAILABLE = new Set([5, 6, 10, 13, 14]);

/**
 * A failure of the store itself (down, restarting, locked, out of disk, or a statement prepared before a migration
 * changed its table) rather than of the statement: the request may succeed when retried, so it is answered 503
 * instead of 500.
 */
export function isStoreUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.errcode !== undefined) return SQLITE_UNAVAILABLE.has(Number(e.errcode) & 0xff);
  if (typeof e.code === 'string' && (PG_UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08') || isStaleStatement(err))) return true;
  return typeof e.message === 'string' && e.code === undefined && PG_UNAVAILABLE_MESSAGES.test(e.message);
}
