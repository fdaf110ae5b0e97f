import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';
import { bumpConfigVersion } from '../ingest/config-versions.ts';

export type ClientRow = Selectable<DB['clients']>;

/**
 * The clients of the organization whose slug is one of `slugs` (ingest matches `labels.client` against
 * them); a slug with no client is simply absent from the result.
 */
export async function bySlugs(db: Kysely<DB>, orgId: string, slugs: string[]): Promise<Array<{ id: string; slug: string }>> {
  const wanted = [...new Set(slugs)];
  if (wanted.length === 0) return [];
  return db.selectFrom('clients').select(['id', 'slug']).where('org_id', '=', orgId).where('slug', 'in', wanted).execute();
}

export function clientsRepo() {
  const scoped = (db: Kysely<DB>, orgId: string) => db.selectFrom('clients').where('org_id', '=', orgId);
  return {
    // Every write of a client invalidates ingest's caches (it matches labels.client against the slugs).
    async insert(db: Kysely<DB>, row: Insertable<DB['clients']>): Promise<void> {
      await db.insertInto('clients').values(row).execute();
      await bumpConfigVersion(db, row.org_id);
    },
    get: (db: Kysely<DB>, orgId: string, id: string) => scoped(db, orgId).selectAll().where('id', '=', id).executeTakeFirst(),
    bySlugs,
    /** Every client of the organization, by slug (ingest caches them). */
    slugs: (db: Kysely<DB>, orgId: string) => db.selectFrom('clients').select(['id', 'slug']).where('org_id', '=', orgId).execute(),
    page: (db: Kysely<DB>, orgId: string, limit: number, after: Keyset | null) =>
      keysetPage(scoped(db, orgId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string) => countRows(scoped(db, orgId)),
    async update(db: Kysely<DB>, orgId: string, id: string, changes: Updateable<ClientRow>): Promise<ClientRow | undefined> {
      const row = await db.updateTable('clients').set(changes).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst();
      if (row) await bumpConfigVersion(db, orgId);
      return row;
    },
    remove: async (db: Kysely<DB>, orgId: string, id: string): Promise<boolean> => {
      const r = await db.deleteFrom('clients').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) return false;
      await bumpConfigVersion(db, orgId);
      return true;
    },
    /** Whether a suppression window is scoped to the client. */
    hasSuppressionWindows: async (db: Kysely<DB>, orgId: string, id: string): Promise<boolean> =>
      (await db.selectFrom('suppression_windows').select('id').where('org_id', '=', orgId).where('client_id', '=', id).limit(1).executeTakeFirst()) !== undefined,
    /** Unlinks the client's integrations and heartbeats (they are kept, belonging to no client; its alerts: the alert writer's). */
    detach: async (db: Kysely<DB>, orgId: string, id: string, at: number): Promise<void> => {
      await db.updateTable('integrations').set({ client_id: null, updated_at: at }).where('org_id', '=', orgId).where('client_id', '=', id).execute();
      await db.updateTable('heartbeats').set({ client_id: null, updated_at: at }).where('org_id', '=', orgId).where('client_id', '=', id).execute();
    },
  };
}
export type ClientsRepo = ReturnType<typeof clientsRepo>;
