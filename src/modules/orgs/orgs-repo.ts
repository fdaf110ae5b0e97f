import type { Insertable, Kysely, Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';

export function orgsRepo() {
  return {
    insert: (db: Kysely<DB>, org: Insertable<DB['orgs']>) => db.insertInto('orgs').values(org).execute(),
    count: async (db: Kysely<DB>): Promise<number> => {
      const row = await db.selectFrom('orgs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    settings: (db: Kysely<DB>, id: string) =>
      db.selectFrom('orgs').select(['id', 'name', 'timezone', 'analytics_labels']).where('id', '=', id).executeTakeFirst(),
    update: (db: Kysely<DB>, id: string, changes: Updateable<DB['orgs']>) =>
      db.updateTable('orgs').set(changes).where('id', '=', id).returning(['id', 'name', 'timezone', 'analytics_labels']).executeTakeFirst(),
    exists: async (db: Kysely<DB>, id: string): Promise<boolean> =>
      (await db.selectFrom('orgs').select('id').where('id', '=', id).executeTakeFirst()) !== undefined,
  };
}
export type OrgsRepo = ReturnType<typeof orgsRepo>;
