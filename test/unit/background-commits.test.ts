import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { afterCommit, createStore, type Store } from '../../src/db/database.ts';
import type { DB } from '../../src/db/schema.ts';

/**
 * On SQLite, background work (job polls, delivery claims and records, workflow runs, the relay) commits without
 * waiting for the disk, and everything else still waits (docs/operating.md, "Durability"): an ingest answered 200
 * whose commit skipped the fsync could be lost to a power cut.
 */
const FULL = 2;
const NORMAL = 1;
const level = async (db: Kysely<DB>): Promise<number> => Number((await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db)).rows[0]?.synchronous);

describe('background commits (sqlite)', () => {
  let dir: string;
  let store: Store;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'af-bg-'));
    store = await createStore({ kind: 'sqlite', file: path.join(dir, 'af.db') });
    await sql`create table t (x integer)`.execute(store.db);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commit what they wrote at the relaxed level, run their after-commit hooks, and leave every other commit waiting for the disk', async () => {
    const seen: string[] = [];
    const inside = await store.background(async (trx) => {
      await sql`insert into t values (1)`.execute(trx);
      afterCommit(trx, () => seen.push('hook'));
      return level(trx);
    });
    assert.equal(inside, NORMAL);
    assert.deepEqual(seen, ['hook']);
    assert.equal(await level(store.db), FULL);
    assert.equal(await store.db.transaction().execute((trx) => level(trx)), FULL);
    assert.deepEqual((await sql<{ x: number }>`select x from t`.execute(store.db)).rows, [{ x: 1 }]);
  });

  it('hold the connection from begin to commit: a transaction asked for meanwhile runs after, at FULL', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const background = store.background(async (trx) => {
      await held;
      return level(trx);
    });
    const ordinary = store.db.transaction().execute((trx) => level(trx));
    release();
    assert.deepEqual(await Promise.all([background, ordinary]), [NORMAL, FULL]);
  });

  it('roll back whole when their work fails, run no hook, and put the level back', async () => {
    const seen: string[] = [];
    await assert.rejects(store.background(async (trx) => {
      await sql`insert into t values (2)`.execute(trx);
      afterCommit(trx, () => seen.push('hook'));
      throw new Error('the work failed');
    }), /the work failed/);
    assert.deepEqual(seen, []);
    assert.equal(await level(store.db), FULL);
    assert.equal((await sql<{ n: number }>`select count(*) as n from t where x = 2`.execute(store.db)).rows[0]?.n, 0);
  });
});
