import type { Kysely } from 'kysely';
import { type MigrationFactory } from './types.ts';

/**
 * SQLite's job claim skips the jobs of groups already running their cap (sqlite-queue.ts): while one organization
 * holds its cap, a claim walks that organization's whole backlog in claim order to find another's job. With the
 * group in the index, that walk reads the index alone, not each job's row as well.
 */
const migration: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.createIndex('jobs_claim_groups').on('jobs').columns(['queue', 'state', 'priority desc', 'run_at', 'group_id']).execute();
    await db.schema.dropIndex('jobs_claim_order').execute();
  },
});
export default migration;
