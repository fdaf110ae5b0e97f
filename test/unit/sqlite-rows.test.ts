import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { createStore } from '../../src/db/database.ts';

// The SQLite adapter builds each row with a function compiled from the statement's column names (sqlite-database.ts).
describe('SQLite rows', () => {
  it('carry every column under its own name, whatever the name, and run nothing written in one', async () => {
    const store = await createStore({ kind: 'sqlite', file: ':memory:' });
    try {
      const g = globalThis as { pwned?: boolean };
      const { rows } = await sql<Record<string, unknown>>`select 1 as plain, 'x' as "a""b", 2 as "}; globalThis.pwned = true; ({", 3 as "\\u0000", null as "toString"`.execute(store.db);
      assert.deepEqual(rows, [{ plain: 1, 'a"b': 'x', '}; globalThis.pwned = true; ({': 2, '\\u0000': 3, toString: null }]);
      assert.equal(g.pwned, undefined);
      const [proto] = (await sql<Record<string, unknown>>`select 4 as "__proto__", 5 as id`.execute(store.db)).rows;
      assert.equal(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value, 4);
      assert.equal(proto?.id, 5);
      assert.equal(Object.getPrototypeOf(proto), null);
    } finally {
      await store.close();
    }
  });
});
