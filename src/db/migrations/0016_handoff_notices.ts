import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('schedules').addColumn('handoff_notices', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      // One row per (schedule, shift start, person): the primary key is what makes a notice go once, whatever
      // number of instances look for shifts starting.
      await db.schema.createTable('handoff_notices')
        .addColumn('idempotency_key', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('schedule_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('starts_at', t.ts, (c) => c.notNull())
        .addColumn('ends_at', t.ts)
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('handoff_notices_schedule').on('handoff_notices').columns(['org_id', 'schedule_id', 'starts_at']).execute();
    },
  };
};
export default migration;
