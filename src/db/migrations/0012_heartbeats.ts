import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('heartbeats')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('interval_seconds', 'integer', (c) => c.notNull())
        .addColumn('grace_seconds', 'integer', (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text')
        .addColumn('labels', t.json, (c) => c.notNull())
        .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
        // Only a hash of the ping token is kept: the token is shown once, when made.
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('last_ping_at', t.ts)
        // When it is missed unless pinged before: kept with the row, so the checker's look is one index range.
        .addColumn('due_at', t.ts, (c) => c.notNull())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('heartbeats_org_created').on('heartbeats').columns(['org_id', 'created_at', 'id']).execute();
      await db.schema.createIndex('heartbeats_due').on('heartbeats').columns(['due_at']).execute();
    },
  };
};
export default migration;
