import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('clients')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('contact_email', 'text')
        .addColumn('notes', 'text')
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .addUniqueConstraint('clients_org_slug', ['org_id', 'slug'])
        .execute();
      await db.schema.createIndex('clients_org_created').on('clients').columns(['org_id', 'created_at', 'id']).execute();

      await db.schema.createTable('suppression_windows')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('starts_at', t.ts, (c) => c.notNull())
        .addColumn('ends_at', t.ts, (c) => c.notNull())
        .addColumn('matchers', t.json, (c) => c.notNull())
        .addColumn('recurrence', 'text')
        .addColumn('timezone', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text')
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('suppression_org_created').on('suppression_windows').columns(['org_id', 'created_at', 'id']).execute();

      // Which window holds a suppressed alert: the sweeper returns them to firing when it ends.
      await db.schema.alterTable('alerts').addColumn('suppression_id', 'text').execute();
      await sql`create index alerts_suppressed_by on alerts (suppression_id) where status = 'suppressed'`.execute(db);
      await db.schema.createIndex('alerts_org_client_created').on('alerts').columns(['org_id', 'client_id', 'created_at', 'id']).execute();

      // Per-integration delivery counters, so a user can see whether a sender is reaching us.
      await db.schema.alterTable('integrations').addColumn('accepted_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('integrations').addColumn('rejected_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('integrations').addColumn('last_alert_at', t.ts).execute();
      await db.schema.alterTable('integrations').addColumn('last_rejected_at', t.ts).execute();

      await db.schema.createTable('integration_rejections')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('integration_id', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('code', 'text', (c) => c.notNull())
        .addColumn('error', 'text', (c) => c.notNull())
        .addColumn('details', t.json)
        .addColumn('payload', 'text')
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rejections_integration_created').on('integration_rejections').columns(['integration_id', 'created_at', 'id']).execute();
    },
  };
};
export default migration;
