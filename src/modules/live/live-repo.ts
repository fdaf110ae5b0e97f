import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { LiveEvent } from './live-fns.ts';

/** The highest sequence number given up to retention, kept so a resume from before it can be told "reset". */
const PRUNED_KEY = 'live_events_pruned_seq';

const COLUMNS = ['seq', 'org_id as orgId', 'type', 'entity_id as id', 'status', 'severity', 'title'] as const;
// PostgreSQL's bigserial comes back as a number (see database.ts); SQLite's integer already is one.
const toEvent = (r: LiveEvent): LiveEvent => ({ ...r, seq: Number(r.seq) });

export function liveRepo() {
  return {
    maxSeq: async (db: Kysely<DB>): Promise<number> =>
      Number((await db.selectFrom('live_events').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirst())?.m ?? 0),
    /** Every organization's rows after `after`, and those numbered `gaps` (rows that may have committed late). */
    async since(db: Kysely<DB>, after: number, gaps: number[], limit: number): Promise<LiveEvent[]> {
      const rows = await db.selectFrom('live_events').select(COLUMNS).where('seq', '>', after).orderBy('seq').limit(limit).execute();
      const late = gaps.length === 0 ? [] : await db.selectFrom('live_events').select(COLUMNS).where('seq', 'in', gaps).execute();
      return [...late, ...rows].map(toEvent);
    },
    /** One organization's rows after `after`, oldest first: what a resuming stream missed. */
    orgSince: async (db: Kysely<DB>, orgId: string, after: number, limit: number): Promise<LiveEvent[]> =>
      (await db.selectFrom('live_events').select(COLUMNS).where('org_id', '=', orgId).where('seq', '>', after).orderBy('seq').limit(limit).execute()).map(toEvent),
    prunedUpTo: async (db: Kysely<DB>): Promise<number> =>
      Number((await db.selectFrom('meta').select('value').where('key', '=', PRUNED_KEY).executeTakeFirst())?.value ?? 0),
    /**
     * Deletes the rows before the first one written at or after `before` (sequence order follows time closely
     * enough: a straggler a moment older is kept one more round) and records how far it went. The newest row
     * always stays: SQLite numbers a row after the highest present, so an empty table would start again at 1.
     */
    async prune(db: Kysely<DB>, before: number): Promise<number> {
      const keep = await db.selectFrom('live_events').select('seq').where('created_at', '>=', before).orderBy('seq').limit(1).executeTakeFirst();
      const upTo = (keep ? Number(keep.seq) : await this.maxSeq(db)) - 1;
      const r = await db.deleteFrom('live_events').where('seq', '<=', upTo).executeTakeFirst();
      if (Number(r.numDeletedRows) > 0) {
        await db.insertInto('meta').values({ key: PRUNED_KEY, value: String(upTo) })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(upTo) })).execute();
      }
      return Number(r.numDeletedRows);
    },
  };
}
export type LiveRepo = ReturnType<typeof liveRepo>;
