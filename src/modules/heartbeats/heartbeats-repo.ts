import { sql, type Kysely, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type HeartbeatRow = DB['heartbeats'];

/** A time parameter as PostgreSQL's bigint (it would infer integer from the column arithmetic, too small for epoch milliseconds). */
const ms = (v: unknown) => sql<number>`cast(${v} as bigint)`;
/** Interval plus grace in milliseconds (bigint: a year is past integer's range). */
const windowOf = (interval: unknown, grace: unknown) => sql<number>`(${ms(interval)} + ${ms(grace)}) * 1000`;

export function heartbeatsRepo() {
  const scoped = (db: Kysely<DB>, orgId: string) => db.selectFrom('heartbeats').where('org_id', '=', orgId);
  return {
    insert: (db: Kysely<DB>, row: HeartbeatRow) => db.insertInto('heartbeats').values(row).execute(),
    get: (db: Kysely<DB>, orgId: string, id: string) => scoped(db, orgId).selectAll().where('id', '=', id).executeTakeFirst(),
    page: (db: Kysely<DB>, orgId: string, limit: number, after: Keyset | null) => keysetPage(scoped(db, orgId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string) => countRows(scoped(db, orgId)),
    /**
     * Changes a heartbeat; its due time follows from the values after the change: from now when `resumeAt`
     * is given (it is being unpaused), else from its last ping or creation.
     */
    update: (db: Kysely<DB>, orgId: string, id: string, changes: Updateable<HeartbeatRow>, resumeAt: number | null) => {
      const interval = changes.interval_seconds ?? sql.ref('interval_seconds');
      const grace = changes.grace_seconds ?? sql.ref('grace_seconds');
      const from = resumeAt === null ? sql`coalesce(last_ping_at, created_at)` : ms(resumeAt);
      return db.updateTable('heartbeats')
        .set({ ...changes, due_at: sql<number>`${from} + ${windowOf(interval, grace)}` })
        .where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst();
    },
    remove: (db: Kysely<DB>, orgId: string, id: string) =>
      db.deleteFrom('heartbeats').where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst(),
    byTokenHash: (db: Kysely<DB>, hash: string) => db.selectFrom('heartbeats').selectAll().where('token_hash', '=', hash).executeTakeFirst(),
    /** A ping: up, and due a full interval plus grace from now. */
    ping: (db: Kysely<DB>, id: string, at: number) => db.updateTable('heartbeats')
      .set({ state: 'up', last_ping_at: at, due_at: sql<number>`${ms(at)} + ${windowOf(sql.ref('interval_seconds'), sql.ref('grace_seconds'))}` })
      .where('id', '=', id).returningAll().executeTakeFirst(),
    /** Watched heartbeats past their due time, not yet down, most overdue first, of every organization. */
    due: (db: Kysely<DB>, at: number, limit: number) => db.selectFrom('heartbeats').select(['id', 'org_id'])
      .where('due_at', '<', at).where('state', '<>', 'down').where('paused', '=', 0).orderBy('due_at').limit(limit).execute(),
    /**
     * Marks a missed heartbeat down, if it still is missed: the conditional update only one instance wins
     * (PostgreSQL re-checks the condition after waiting for a concurrent ping or claim; SQLite has one writer).
     */
    claimMissed: (db: Kysely<DB>, orgId: string, id: string, at: number) => db.updateTable('heartbeats')
      .set({ state: 'down' })
      .where('org_id', '=', orgId).where('id', '=', id).where('due_at', '<', at).where('state', '<>', 'down').where('paused', '=', 0)
      .returningAll().executeTakeFirst(),
  };
}
export type HeartbeatsRepo = ReturnType<typeof heartbeatsRepo>;
