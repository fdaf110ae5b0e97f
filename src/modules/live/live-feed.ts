import { sql, type Insertable, type Kysely } from 'kysely';
import { afterCommit, type Dialect } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';

/** One change the dashboard's live stream relays: an alert or an incident, as it is after the change. */
export interface LiveChange {
  orgId: string;
  type: 'alert.created' | 'alert.updated' | 'alert.resolved' | 'incident.created' | 'incident.updated';
  id: string;
  status: string;
  severity: string;
  title: string;
  at: number;
}

/** What every instance's live poller LISTENs on (PostgreSQL): a NOTIFY in the writing transaction reaches it at commit. */
export const LIVE_CHANNEL = 'alertflow_events';
/** Rows per INSERT: 7 parameters each, well under either store's limit. */
const CHUNK = 1000;

export const liveRow = (c: LiveChange): Insertable<DB['live_events']> => ({
  org_id: c.orgId, type: c.type, entity_id: c.id, status: c.status, severity: c.severity, title: c.title, created_at: c.at,
});

/**
 * The writing side of the live stream (live-service.ts reads it): the writers of alerts and incidents record
 * their changes here, in their own transaction. Once it commits, this process's streams are woken at once;
 * on PostgreSQL the other instances are woken by the NOTIFY, which PostgreSQL delivers only at commit.
 */
export function liveFeed(deps: { dialect: Dialect; wake: () => void }) {
  return {
    /** Wakes this process's streams: for a writer that committed rows of its own (ingest's batches). */
    wake: deps.wake,
    async record(db: Kysely<DB>, changes: readonly LiveChange[]): Promise<void> {
      if (changes.length === 0) return;
      for (let i = 0; i < changes.length; i += CHUNK) {
        const rows = changes.slice(i, i + CHUNK).map(liveRow);
        if (deps.dialect === 'postgres' && i + CHUNK >= changes.length) {
          // The last rows and the NOTIFY in one statement: one round trip less for every change of an alert.
          await db.with('recorded', (w) => w.insertInto('live_events').values(rows)).selectNoFrom(sql`pg_notify(${LIVE_CHANNEL}, '')`.as('notified')).execute();
        } else {
          await db.insertInto('live_events').values(rows).execute();
        }
      }
      afterCommit(db, deps.wake);
    },
  };
}
export type LiveFeed = ReturnType<typeof liveFeed>;
