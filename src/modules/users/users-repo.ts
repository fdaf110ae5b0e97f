import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type UserRow = Selectable<DB['users']>;
export type PasswordLinkRow = DB['password_links'];

export function usersRepo() {
  const scoped = (db: Kysely<DB>, orgId: string) => db.selectFrom('users').where('org_id', '=', orgId);
  return {
    insert: (db: Kysely<DB>, user: Insertable<DB['users']>) => db.insertInto('users').values(user).execute(),
    get: (db: Kysely<DB>, orgId: string, id: string) => scoped(db, orgId).selectAll().where('id', '=', id).executeTakeFirst(),
    page: (db: Kysely<DB>, orgId: string, limit: number, after: Keyset | null) =>
      keysetPage(scoped(db, orgId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string) => countRows(scoped(db, orgId)),
    byIds: (db: Kysely<DB>, orgId: string, ids: string[]) =>
      ids.length === 0 ? Promise.resolve([]) : scoped(db, orgId).select(['id', 'name']).where('id', 'in', ids).execute(),
    update: (db: Kysely<DB>, orgId: string, id: string, changes: Updateable<UserRow>) =>
      db.updateTable('users').set(changes).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst(),
    remove: (db: Kysely<DB>, orgId: string, id: string) =>
      db.deleteFrom('users').where('org_id', '=', orgId).where('id', '=', id).execute(),
    /**
     * Serializes the organization's role changes: a write to its row holds a lock (PostgreSQL: the row;
     * SQLite: the database) until the transaction ends, so two demotions cannot both count two owners.
     */
    lockRoles: (db: Kysely<DB>, orgId: string) =>
      db.updateTable('orgs').set((eb) => ({ name: eb.ref('name') })).where('id', '=', orgId).execute(),
    owners: (db: Kysely<DB>, orgId: string) => countRows(scoped(db, orgId).where('role', '=', 'owner')),
    /** Ends a user's sessions (all, or all but `keepIdHash`): every instance refuses them at the next request. */
    endSessions: (db: Kysely<DB>, orgId: string, userId: string, keepIdHash: string | null = null) => {
      const q = db.deleteFrom('sessions').where('org_id', '=', orgId).where('user_id', '=', userId);
      return (keepIdHash === null ? q : q.where('id_hash', '!=', keepIdHash)).execute();
    },
    /** What a set-password email says of the organization: its name, and its clock for the expiry. */
    org: (db: Kysely<DB>, orgId: string) => db.selectFrom('orgs').select(['name', 'timezone']).where('id', '=', orgId).executeTakeFirst(),
    insertLink: (db: Kysely<DB>, row: PasswordLinkRow) => db.insertInto('password_links').values(row).execute(),
    /** Marks the link used if it is unused and unexpired; of two uses racing, one gets the row. */
    claimLink: (db: Kysely<DB>, tokenHash: string, at: number) =>
      db.updateTable('password_links').set({ used_at: at })
        .where('token_hash', '=', tokenHash).where('used_at', 'is', null).where('expires_at', '>', at)
        .returning(['org_id', 'user_id']).executeTakeFirst(),
    link: (db: Kysely<DB>, tokenHash: string) =>
      db.selectFrom('password_links').select(['used_at', 'expires_at']).where('token_hash', '=', tokenHash).executeTakeFirst(),
  };
}
export type UsersRepo = ReturnType<typeof usersRepo>;
