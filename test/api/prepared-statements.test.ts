import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createStore, isStoreUnavailable, type Store } from '../../src/db/database.ts';
import { createTestStore, type TestStore } from '../support/stores.ts';

/**
 * PostgreSQL only (SQLite keeps its own statements prepared, sqlite-database.ts): statements that run often are
 * prepared once per connection (db/database.ts, namedStatements), and a table changed under one by a migration
 * costs one failed statement, not a broken instance.
 */
describe('prepared statements (postgres)', () => {
  let t: TestStore;
  let store: Store;
  before(async () => {
    t = await createTestStore('postgres');
    store = await createStore(t.config);
    await sql`create table probe (id text primary key, v int not null)`.execute(store.db);
    await sql`insert into probe values ('a', 1), ('b', 2)`.execute(store.db);
  });
  after(async () => {
    await store.close();
    await t.drop();
  });

  // Any probe table, by name: Kysely's types only know the app's tables.
  const probe = (id: string) => sql<Record<string, unknown>>`select * from probe where id = ${id}`;

  it('a statement run a few times is prepared on its connection and gives the same rows', async () => {
    const names = await store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 4; i++) assert.deepEqual((await probe('a').execute(trx)).rows, [{ id: 'a', v: 1 }]);
      return (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(trx)).rows.map((r) => r.statement);
    });
    assert.ok(names.some((s) => s.includes('from probe where id = $1')), `prepared: ${JSON.stringify(names)}`);
  });

  it('after a migration adds a column under it, the statement fails at most once per connection (a 503), then returns the new column', async () => {
    // Prepared on every connection the pool has open (one statement at a time takes the same few).
    for (let i = 0; i < 10; i++) await probe('b').execute(store.db);
    await sql`alter table probe add column note text`.execute(store.db);
    let failures = 0;
    let rows: unknown[] = [];
    for (let i = 0; i < 25; i++) {
      try {
        rows = (await probe('b').execute(store.db)).rows;
      } catch (err) {
        assert.match((err as Error).message, /cached plan must not change result type/);
        assert.equal(isStoreUnavailable(err), true, 'answered 503 (try again), not 500');
        failures += 1;
      }
    }
    assert.deepEqual(rows, [{ id: 'b', v: 2, note: null }]);
    assert.ok(failures <= 1, `${failures} failures: each connection should fail once at most, and only one was used`);
  });
});
