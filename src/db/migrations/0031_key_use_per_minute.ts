import type { Kysely } from 'kysely';
import type { MigrationFactory } from './types.ts';

/**
 * API key use is counted, not logged request by request: one `api_key.used` event per key, minute, method,
 * path, status and address, whose `uses` the flushes of every instance add to (docs: api, "API keys").
 * Every other event is one occurrence, hence the default.
 */
const migration: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('audit_events').addColumn('uses', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  },
});
export default migration;
