import { type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

/**
 * What became of each request to the Opsgenie-compatible API, for its `GET /v2/alerts/requests/{requestId}`
 * (Opsgenie answers actions with a request id and reports their outcome there). Kept a day; an integration's
 * go with it.
 */
const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('opsgenie_requests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id').onDelete('cascade'))
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('success', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('alert_id', 'text')
        .addColumn('alias', 'text')
        .addColumn('processed_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('opsgenie_requests_integration_processed').on('opsgenie_requests').columns(['integration_id', 'processed_at']).execute();
    },
  };
};
export default migration;
