import type { Kysely, Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type IntegrationRow = DB['integrations'];

export function integrationsRepo() {
  const scoped = (db: Kysely<DB>, orgId: string) => db.selectFrom('integrations').where('org_id', '=', orgId);
  return {
    insert: (db: Kysely<DB>, row: IntegrationRow) => db.insertInto('integrations').values(row).execute(),
    get: (db: Kysely<DB>, orgId: string, id: string) => scoped(db, orgId).selectAll().where('id', '=', id).executeTakeFirst(),
    /** The ingest lookup: the token is the only credential, so it is matched exactly through its unique index. */
    byToken: (db: Kysely<DB>, token: string) =>
      db.selectFrom('integrations').selectAll().where('token', '=', token).executeTakeFirst(),
    page: (db: Kysely<DB>, orgId: string, limit: number, after: Keyset | null) =>
      keysetPage(scoped(db, orgId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string) => countRows(scoped(db, orgId)),
    update: (db: Kysely<DB>, orgId: string, id: string, changes: Updateable<IntegrationRow>) =>
      db.updateTable('integrations').set(changes).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst(),
    remove: async (db: Kysely<DB>, orgId: string, id: string): Promise<boolean> => {
      const r = await db.deleteFrom('integrations').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) === 1;
    },
  };
}
export type IntegrationsRepo = ReturnType<typeof integrationsRepo>;
