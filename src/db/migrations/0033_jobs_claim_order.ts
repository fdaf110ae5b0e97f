import type { Kysely } from 'kysely';
import { type MigrationFactory } from './types.ts';

/**
 * SQLite's job queue takes the highest priority first, then the oldest (sqlite-queue.ts). The index of 0005 holds
 * priority ascending, so that order needed every due job of the queue sorted on each claim: with a backlog of
 * thousands of pages, each claim cost milliseconds more as the backlog grew. Held in the claim's own order, the
 * first due row of the index is the job to take. `jobs_due` (state, run_at) goes: nothing else reads by it, and
 * SQLite's planner, with no statistics, preferred it to the claim order and sorted again.
 */
const migration: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.createIndex('jobs_claim_order').on('jobs').columns(['queue', 'state', 'priority desc', 'run_at']).execute();
    await db.schema.dropIndex('jobs_queue_priority').execute();
    await db.schema.dropIndex('jobs_due').execute();
  },
});
export default migration;
