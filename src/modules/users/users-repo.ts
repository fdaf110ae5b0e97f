import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type UserRow = DB['users'];

export function usersRepo() {
  const scoped = (db: Kysely<DB>, orgId: string) => db.selectFrom('users').where('org_id', '=', orgId);
  return {
    insert: (db: Kysely<DB>, user: UserRow) => db.insertInto('users').values(user).execute(),
    page: (db: Kysely<DB>, orgId: string, limit: number, after: Keyset | null) =>
      keysetPage(scoped(db, orgId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string) => countRows(scoped(db, orgId)),
    byIds: (db: Kysely<DB>, orgId: string, ids: string[]) =>
      ids.length === 0 ? Promise.resolve([]) : scoped(db, orgId).select(['id', 'name']).where('id', 'in', ids).execute(),
  };
}
export type UsersRepo = ReturnType<typeof usersRepo>;
