import type { Kysely } from 'kysely';
import { type MigrationFactory } from './types.ts';

/**
 * While an organization runs its cap of a queue's jobs, SQLite's claim first asks whether any other group has a due
 * job (sqlite-queue.ts): one range of this index per gap between the capped groups, a few rows read, where the walk in
 * claim order reads the capped organization's whole backlog to find nothing.
 */
const migration: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.createIndex('jobs_due_groups').on('jobs').columns(['queue', 'state', 'group_id', 'run_at']).execute();
  },
});
export default migration;
