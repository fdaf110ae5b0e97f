import type { Kysely } from 'kysely';
import type { StatementSync } from 'node:sqlite';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type ApiKeyRow = DB['api_keys'];

export type KeyByHash = Pick<ApiKeyRow, 'id' | 'org_id' | 'key_hash' | 'scopes' | 'expires_at' | 'revoked_at'>;

/** Every REST request reads its key's row: written out once as SQL and prepared, not built per request. */
const BY_HASH_SQL = (p: string) => `select id, org_id, key_hash, scopes, expires_at, revoked_at from api_keys where key_hash = ${p}`;

function keyByHash(store: Store): (hash: string) => Promise<KeyByHash | undefined> {
  const { sqlite, pg } = store;
  if (sqlite) {
    let statement: StatementSync | undefined;
    return async (hash) => sqlite.read((raw) => (statement ??= raw.prepare(BY_HASH_SQL('?'))).get(hash) as KeyByHash | undefined);
  }
  if (!pg) throw new Error('a PostgreSQL store without prepared statements');
  return async (hash) => (await pg.run<KeyByHash>(BY_HASH_SQL('$1'), [hash]))[0];
}

export function apiKeysRepo(store: Store) {
  const byHash = keyByHash(store);
  const active = (db: Kysely<DB>, orgId: string) =>
    db.selectFrom('api_keys').where('org_id', '=', orgId).where('revoked_at', 'is', null);
  return {
    insert: (db: Kysely<DB>, row: ApiKeyRow) => db.insertInto('api_keys').values(row).execute(),
    findByHash: byHash,
    page: (db: Kysely<DB>, orgId: string, limit: number, after: Keyset | null) =>
      keysetPage(active(db, orgId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string) => countRows(active(db, orgId)),
    /**
     * The unrevoked keys' ids, scopes and expiry. With `lock` (PostgreSQL) the rows stay locked until the
     * transaction ends, in id order, so concurrent revocations that check "is another key left?" queue
     * instead of both passing; SQLite transactions take the write lock at BEGIN and are serial anyway.
     */
    activeForRevocation: (db: Kysely<DB>, orgId: string, lock: boolean) => {
      const q = active(db, orgId).select(['id', 'scopes', 'expires_at']).orderBy('id');
      return (lock ? q.forUpdate() : q).execute();
    },
    /** Returns whether an unrevoked key of this organization was revoked. */
    revoke: async (db: Kysely<DB>, orgId: string, id: string, at: number): Promise<boolean> => {
      const r = await db.updateTable('api_keys').set({ revoked_at: at, updated_at: at })
        .where('org_id', '=', orgId).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}
export type ApiKeysRepo = ReturnType<typeof apiKeysRepo>;
