import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type FeedRow = DB['calendar_feeds'];
export type FeedKind = 'member' | 'schedule';

/** Calendar feeds: one per member or schedule, found by the hash of its token. */
export function calendarFeedsRepo() {
  const of = (db: Kysely<DB>, orgId: string, kind: FeedKind, subjectId: string) =>
    db.selectFrom('calendar_feeds').where('org_id', '=', orgId).where('kind', '=', kind).where('subject_id', '=', subjectId);
  return {
    get: (db: Kysely<DB>, orgId: string, kind: FeedKind, subjectId: string) => of(db, orgId, kind, subjectId).selectAll().executeTakeFirst(),
    /** Issues the subject's feed, or replaces its token (the old one stops working in the same statement). */
    put: (db: Kysely<DB>, row: FeedRow) =>
      db.insertInto('calendar_feeds').values(row)
        .onConflict((oc) => oc.columns(['org_id', 'kind', 'subject_id']).doUpdateSet({ token_hash: row.token_hash, created_at: row.created_at, last_used_at: null }))
        .execute(),
    remove: async (db: Kysely<DB>, orgId: string, kind: FeedKind, subjectId: string): Promise<boolean> =>
      Number((await db.deleteFrom('calendar_feeds').where('org_id', '=', orgId).where('kind', '=', kind).where('subject_id', '=', subjectId).executeTakeFirst()).numDeletedRows) > 0,
    byHash: (db: Kysely<DB>, tokenHash: string) => db.selectFrom('calendar_feeds').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),
    used: (db: Kysely<DB>, id: string, at: number) => db.updateTable('calendar_feeds').set({ last_used_at: at }).where('id', '=', id).execute(),
  };
}
export type CalendarFeedsRepo = ReturnType<typeof calendarFeedsRepo>;
