import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { describe } from 'node:test';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { StoreConfig } from '../../src/config.ts';

export type StoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

/** The cluster CI and developers have; each test gets its own database in it, never the shared ones. */
export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface EachStoreOptions {
  /**
   * Run the kinds' blocks side by side: each has its own store (and its own server, sinks and browser context),
   * so the file takes about as long as its slowest kind instead of the sum. Not where a test measures time
   * (the other kind's load would be in its figure), nor where pages use the clipboard (Chromium has one for all
   * its contexts).
   */
  together: boolean;
  /** Said after the kind in its block's title, e.g. how that kind's test differs. */
  detail?: (kind: StoreKind) => string;
  /** Time limit of each test and hook of each kind's block (else the run's --test-timeout). */
  timeout?: number;
  /** Skips the whole block, with this reason. */
  skip?: string;
}

/**
 * A describe block `title` holding, for each store kind, the block `body` declares, titled `title (kind)`; the
 * tests within one kind's block run in order. The one place a file says how its kinds share the run.
 */
export function eachStore(title: string, options: EachStoreOptions, body: (kind: StoreKind) => void): void {
  describe(title, { skip: options.skip ?? false, concurrency: options.together ? STORE_KINDS.length : 1 }, () => {
    for (const kind of STORE_KINDS) {
      describe(`${title} (${kind}${options.detail?.(kind) ?? ''})`, { concurrency: 1, ...(options.timeout !== undefined && { timeout: options.timeout }) },
        () => body(kind));
    }
  });
}

export interface TestStore {
  config: StoreConfig;
  /** The DATABASE_URL a child process would use for the same store. */
  url: string;
  drop(): Promise<void>;
}

export async function createTestStore(kind: StoreKind): Promise<TestStore> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-test-'));
    const file = path.join(dir, 'alertflow.db');
    return { config: { kind, file }, url: `sqlite://${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `alertflow_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    config: { kind, url: url.toString() },
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Reads the store of a real server process straight from the database, for what its API does not show (such as
 * one organization's deliveries over all its alerts). `sql` uses `$1`, `$2`… on both kinds.
 */
export async function queryStore<R extends Record<string, unknown>>(store: TestStore, sql: string, params: Array<string | number> = []): Promise<R[]> {
  if (store.config.kind === 'sqlite') {
    const db = new DatabaseSync(store.config.file, { readOnly: true });
    try {
      return db.prepare(sql.replace(/\$(\d+)/g, '?$1')).all(...params) as R[];
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: store.url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as R[];
  } finally {
    await c.end();
  }
}
