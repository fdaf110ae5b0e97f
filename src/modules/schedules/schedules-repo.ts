import type { Kysely, Selectable, Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type ScheduleRow = Selectable<DB['schedules']>;

export interface ScheduleUser {
  id: string;
  name: string;
  email: string;
}

export function schedulesRepo() {
  const scoped = (db: Kysely<DB>, orgId: string) => db.selectFrom('schedules').where('org_id', '=', orgId);
  return {
    insert: (db: Kysely<DB>, row: ScheduleRow) => db.insertInto('schedules').values(row).execute(),
    get: (db: Kysely<DB>, orgId: string, id: string) => scoped(db, orgId).selectAll().where('id', '=', id).executeTakeFirst(),
    page: (db: Kysely<DB>, orgId: string, limit: number, after: Keyset | null) =>
      keysetPage(scoped(db, orgId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string) => countRows(scoped(db, orgId)),
    all: (db: Kysely<DB>, orgId: string) => scoped(db, orgId).selectAll().execute(),
    update: (db: Kysely<DB>, orgId: string, id: string, changes: Updateable<ScheduleRow>) =>
      db.updateTable('schedules').set(changes).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst(),
    remove: async (db: Kysely<DB>, orgId: string, id: string): Promise<boolean> => {
      const r = await db.deleteFrom('schedules').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) === 1;
    },
    /** Every organization's schedules that send handoff notices (for the worker's checker). */
    withHandoffNotices: (db: Kysely<DB>) => db.selectFrom('schedules').selectAll().where('handoff_notices', '=', 1).execute(),
    /** The organization's users among `ids` (others, and other organizations' users, are simply absent). */
    users: (db: Kysely<DB>, orgId: string, ids: string[]): Promise<ScheduleUser[]> => {
      const wanted = [...new Set(ids)];
      return wanted.length === 0
        ? Promise.resolve([])
        : db.selectFrom('users').select(['id', 'name', 'email']).where('org_id', '=', orgId).where('id', 'in', wanted).execute();
    },
  };
}
export type SchedulesRepo = ReturnType<typeof schedulesRepo>;
