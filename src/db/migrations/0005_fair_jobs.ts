import type { Kysely } from 'kysely';
import { type MigrationFactory } from './types.ts';

const migration: MigrationFactory = () => {
  return {
    async up(db: Kysely<any>) {
      // The jobs table's fair scheduling (SQLite's queue; pg-boss has both natively): the highest priority
      // is taken first, and a group (the organization) holds at most its share of the running jobs.
      await db.schema.alterTable('jobs').addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('jobs').addColumn('group_id', 'text').execute();
      await db.schema.createIndex('jobs_queue_priority').on('jobs').columns(['queue', 'state', 'priority', 'run_at']).execute();
    },
  };
};
export default migration;
