import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export function orgsRepo() {
  return {
    insert: (db: Kysely<DB>, org: DB['orgs']) => db.insertInto('orgs').values(org).execute(),
    count: async (db: Kysely<DB>): Promise<number> => {
      const row = await db.selectFrom('orgs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    exists: async (db: Kysely<DB>, id: string): Promise<boolean> =>
      (await db.selectFrom('orgs').select('id').where('id', '=', id).executeTakeFirst()) !== undefined,
  };
}
export type OrgsRepo = ReturnType<typeof orgsRepo>;
