import { sql } from 'kysely';
import type { Store } from '../../db/database.ts';

export interface QueueStat {
  queue: string;
  /** Jobs waiting, due or not (retries wait for their backoff). */
  depth: number;
  /** How long the oldest due job has been waiting for a worker, in seconds; 0 when none is due. */
  oldestAgeSeconds: number;
}

/**
 * Depth and lag of each job queue, read from where the queue keeps its jobs: the `jobs` table on SQLite,
 * pg-boss's `job` table (its default `pgboss` schema) on PostgreSQL. One aggregate statement per scrape.
 */
export async function queueStats(store: Store, now: number): Promise<QueueStat[]> {
  if (store.dialect === 'sqlite') {
    const rows = await store.db.selectFrom('jobs')
      .select((eb) => ['queue', eb.fn.countAll<number>().as('depth'), sql<number | null>`min(case when run_at <= ${now} then run_at end)`.as('oldest')])
      .where('state', '=', 'queued').groupBy('queue').execute();
    return rows.map((r) => ({ queue: r.queue, depth: Number(r.depth), oldestAgeSeconds: r.oldest === null ? 0 : Math.max(0, (now - Number(r.oldest)) / 1000) }));
  }
  const { rows } = await sql<{ queue: string; depth: string; age: number | null }>`
    select name as queue, count(*) as depth,
      extract(epoch from now() - min(start_after) filter (where start_after <= now()))::float8 as age
    from pgboss.job where state in ('created', 'retry') group by name`.execute(store.db);
  return rows.map((r) => ({ queue: r.queue, depth: Number(r.depth), oldestAgeSeconds: Math.max(0, r.age ?? 0) }));
}
