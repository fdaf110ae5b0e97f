import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type SessionRow = DB['sessions'];

/** The `meta` row holding the SHA-256 of the one-time setup token while the first organization is awaited. */
const SETUP_TOKEN = 'setup_token_hash';

export function authRepo() {
  return {
    insert: (db: Kysely<DB>, row: SessionRow) => db.insertInto('sessions').values(row).execute(),
    /** The session with its user and organization; a removed user's session finds nothing. */
    find: (db: Kysely<DB>, idHash: string) =>
      db.selectFrom('sessions as s')
        .innerJoin('users as u', (j) => j.onRef('u.id', '=', 's.user_id').onRef('u.org_id', '=', 's.org_id'))
        .innerJoin('orgs as o', 'o.id', 's.org_id')
        .select(['s.id_hash', 's.org_id', 's.csrf_token', 's.created_at', 's.last_seen_at', 'u.id as user_id', 'u.email', 'u.name', 'u.role', 'o.name as org_name'])
        .where('s.id_hash', '=', idHash)
        .executeTakeFirst(),
    touch: (db: Kysely<DB>, idHash: string, at: number) =>
      db.updateTable('sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).where('last_seen_at', '<', at).execute(),
    remove: async (db: Kysely<DB>, idHash: string): Promise<SessionRow | undefined> =>
      db.deleteFrom('sessions').where('id_hash', '=', idHash).returningAll().executeTakeFirst(),
    /** Drops a user's sessions that can no longer be used, so the table does not grow with every sign-in. */
    purgeExpired: (db: Kysely<DB>, userId: string, idleBefore: number, createdBefore: number) =>
      db.deleteFrom('sessions').where('user_id', '=', userId)
        .where((eb) => eb.or([eb('last_seen_at', '<', idleBefore), eb('created_at', '<', createdBefore)])).execute(),
    /** A member with their organization's name, as a new session needs them. */
    member: (db: Kysely<DB>, orgId: string, userId: string) =>
      db.selectFrom('users as u').innerJoin('orgs as o', 'o.id', 'u.org_id')
        .select(['u.id', 'u.email', 'u.name', 'u.role', 'o.name as org_name'])
        .where('u.org_id', '=', orgId).where('u.id', '=', userId)
        .executeTakeFirst(),
    /** Users with a password, by email, in every organization. */
    usersByEmail: (db: Kysely<DB>, email: string) =>
      db.selectFrom('users as u').innerJoin('orgs as o', 'o.id', 'u.org_id')
        .select(['u.id', 'u.org_id', 'u.email', 'u.name', 'u.role', 'u.password_hash', 'o.name as org_name'])
        .where('u.email', '=', email).where('u.password_hash', 'is not', null)
        .orderBy('o.created_at').orderBy('o.id')
        .execute(),
    /** A new setup token replaces any earlier one: only the link logged last works. */
    saveSetupToken: (db: Kysely<DB>, hash: string) =>
      db.insertInto('meta').values({ key: SETUP_TOKEN, value: hash })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: hash })).execute(),
    /**
     * Takes the setup token if it is this one. A DELETE: of two transactions presenting it at once, one
     * deletes the row and the other (waiting on its lock, then finding it gone) gets nothing.
     */
    claimSetupToken: async (db: Kysely<DB>, hash: string): Promise<boolean> =>
      (await db.deleteFrom('meta').where('key', '=', SETUP_TOKEN).where('value', '=', hash).returning('key').executeTakeFirst()) !== undefined,
  };
}
export type AuthRepo = ReturnType<typeof authRepo>;
