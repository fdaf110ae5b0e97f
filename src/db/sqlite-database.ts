import { closeSync, fdatasync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

type Param = null | number | bigint | string | Uint8Array;

function toParam(value: unknown): Param {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === undefined) return null;
  return value as Param;
}

/**
 * A statement's row builder. node:sqlite returns each row as a null-prototype object built property by property,
 * which V8 keeps in dictionary mode: every read of a column is a hash lookup, and building a page of alerts from 26
 * such rows cost more than running its query (docs/benchmarks.md#reads-list-cpu-rest-floor-key-use). The statement
 * returns arrays instead, and this function, compiled once per statement from its column names, turns one into an
 * object literal of a fixed shape. The names are quoted by JSON.stringify; a column named `__proto__` (which a
 * literal would take as the prototype) keeps a plain null-prototype object.
 */
function rowOf(columns: string[]): (values: unknown[]) => Record<string, unknown> {
  if (columns.includes('__proto__')) {
    return (values) => {
      const r = Object.create(null) as Record<string, unknown>;
      columns.forEach((c, i) => { r[c] = values[i]; });
      return r;
    };
  }
  return new Function('v', `return { ${columns.map((c, i) => `${JSON.stringify(c)}: v[${i}]`).join(', ')} };`) as (values: unknown[]) => Record<string, unknown>;
}

const MAX_CACHED_STATEMENTS = 500;
const MAX_CACHED_SQL_LENGTH = 2048;

/** How long a write waits for another connection's write lock (busy_timeout) while the store works. */
const BUSY_TIMEOUT_MS = 5_000;
/**
 * How long it waits once a write has already waited BUSY_TIMEOUT_MS in vain, until a write gets the lock again.
 * node:sqlite waits synchronously: with the lock held elsewhere for minutes (a backup, an operator's open
 * transaction), every background write and every request would stop the event loop for the full timeout, one after
 * the other, and a sender would get its 503 after a minute instead of at once. 20 ms still outlasts another
 * instance's ordinary transaction.
 */
const LOCKED_BUSY_TIMEOUT_MS = 20;

const lockedOut = new WeakSet<DatabaseSync>();

/**
 * How soon after a background commit (one that did not wait for the disk) the WAL is flushed, off the event loop:
 * the most such a commit can be lost by a power cut or an operating-system crash (docs/operating.md, "Durability").
 */
const BACKGROUND_FLUSH_MS = 100;

/**
 * Opens a write transaction on `raw`, taking the write lock up front (IMMEDIATE): a second writer waits on
 * busy_timeout instead of failing with SQLITE_BUSY when it tries to upgrade. After one such wait ends in SQLITE_BUSY,
 * the connection waits LOCKED_BUSY_TIMEOUT_MS until a begin succeeds again (docs/operating.md, "When the store is unreachable").
 */
export function beginImmediate(raw: DatabaseSync): void {
  try {
    raw.exec('begin immediate');
  } catch (err) {
    if (isSqliteBusy(err) && !lockedOut.has(raw)) {
      lockedOut.add(raw);
      raw.exec(`PRAGMA busy_timeout = ${LOCKED_BUSY_TIMEOUT_MS}`);
    }
    throw err;
  }
  if (lockedOut.delete(raw)) raw.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
}

/**
 * Adapts Node's built-in `node:sqlite` to the statement interface Kysely's SqliteDialect expects.
 * We use it instead of better-sqlite3 because that addon's prebuilt binaries cannot be fetched here and
 * a source build links against the machine's Node 20 headers, which Node 24 refuses to load.
 */
export function openSqlite(file: string): { database: SqliteDatabase; raw: DatabaseSync; relaxed: <T>(fn: () => Promise<T>) => Promise<T> } {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const raw = new DatabaseSync(file);
  // WAL + synchronous=FULL: every commit is durable before we answer (background work's excepted, see `relaxed`); busy_timeout lets a
  // second process (CLI, another instance) wait for the write lock instead of failing. It comes
  // first: switching a fresh file to WAL takes a lock, and another process may hold it.
  raw.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;`);
  // SQLite's built-in lower() folds ASCII only; PostgreSQL's folds every letter, and case-insensitive search needs that.
  raw.function('lower', { deterministic: true }, (v) => (typeof v === 'string' ? v.toLowerCase() : v));
  // Prepared statements and their adapters are kept per SQL text: preparing and asking a statement for
  // its columns cost more than running the small statements of the ingest path.
  const cache = new Map<string, SqliteStatement>();

  const adapt = (s: StatementSync): SqliteStatement => {
    const columns = s.columns().map((c) => c.name);
    const args = (params: readonly unknown[]) => params.map(toParam);
    if (columns.length > 0) s.setReturnArrays(true);
    const row = rowOf(columns);
    return {
      reader: columns.length > 0,
      all: (params) => s.all(...args(params)).map((values) => row(values as unknown as unknown[])),
      run: (params) => s.run(...args(params)),
      iterate: function* (params) {
        for (const values of s.iterate(...args(params))) yield row(values as unknown as unknown[]);
      },
    };
  };

  // Background work's commits (`relaxed`) skip the fsync: WAL at synchronous=NORMAL survives the process dying, and
  // the flush below bounds what a power cut can take. Every other commit (ingest, the API's writes) stays FULL.
  let flush: NodeJS.Timeout | null = null;
  let wal: number | null = null;
  const flushSoon = () => {
    if (flush !== null || file === ':memory:') return;
    flush = setTimeout(() => {
      flush = null;
      try {
        wal ??= openSync(`${file}-wal`, 'r');
      } catch {
        return;
      }
      // On libuv's thread pool: nobody waits for it, and a failure leaves the next checkpoint's own sync.
      fdatasync(wal, () => undefined);
    }, BACKGROUND_FLUSH_MS);
    flush.unref();
  };

  // Kysely opens transactions with a plain BEGIN: it becomes beginImmediate.
  const begin: SqliteStatement = {
    reader: false,
    all: () => [],
    run: () => {
      beginImmediate(raw);
      return { changes: 0, lastInsertRowid: 0 };
    },
    iterate: function* () { /* a BEGIN returns no rows */ },
  };

  const prepare = (sql: string): SqliteStatement => {
    if (sql === 'begin') return begin;
    let stmt = cache.get(sql);
    if (stmt === undefined) {
      stmt = adapt(raw.prepare(sql));
      // Multi-row inserts (audit batches) differ in length every time and compile to large programs held
      // in native memory; caching each variant grew the process by tens of MiB. They are prepared per use.
      if (sql.length > MAX_CACHED_SQL_LENGTH) return stmt;
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value as string);
      cache.set(sql, stmt);
    }
    return stmt;
  };

  return {
    raw,
    async relaxed<T>(fn: () => Promise<T>): Promise<T> {
      // SQLite refuses to change the level inside a transaction: `fn` opens its own, and the caller holds the connection.
      raw.exec('PRAGMA synchronous = NORMAL');
      try {
        return await fn();
      } finally {
        raw.exec('PRAGMA synchronous = FULL');
        flushSoon();
      }
    },
    database: {
      prepare,
      close: () => {
        cache.clear();
        if (flush !== null) clearTimeout(flush);
        if (wal !== null) closeSync(wal);
        if (raw.isOpen) raw.close();
      },
    },
  };
}

/** SQLite's SQLITE_BUSY family (busy, busy recovery, busy snapshot, busy timeout) in an error's extended code. */
export const isSqliteBusy = (err: unknown): boolean => (Number((err as { errcode?: unknown }).errcode) & 0xff) === 5;
