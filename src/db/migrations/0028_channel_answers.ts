import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

/**
 * What answering a page through its channel needs (docs: paging): the provider's id of each sent message
 * (to match status callbacks and update chat messages) and its last reported status; reply codes unique per
 * paged address while they live; every inbound answer once (unique per channel and provider event, so a
 * replayed request acts at most once); a send slot per sending number (one SMS a second per number); and
 * the verification of a contact method whose channel needs one (a phone number confirmed by a code).
 */
const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('notifications').addColumn('provider_ref', 'text').execute();
      await db.schema.alterTable('notifications').addColumn('provider_status', 'text').execute();
      await db.schema.alterTable('notifications').addColumn('paced_at', t.ts).execute();

      await db.schema.createTable('reply_codes')
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('code', 'text', (c) => c.notNull())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('notification_id', 'text', (c) => c.notNull())
        .addColumn('incident_id', 'text', (c) => c.notNull())
        .addColumn('expires_at', t.ts, (c) => c.notNull())
        .addPrimaryKeyConstraint('reply_codes_pk', ['address', 'code'])
        .execute();
      await db.schema.createIndex('reply_codes_incident').on('reply_codes').columns(['address', 'incident_id']).execute();

      await db.schema.createTable('inbound_answers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('notification_id', 'text', (c) => c.notNull())
        .addColumn('incident_id', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('event_key', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text')
        .addColumn('via', 'text', (c) => c.notNull())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addUniqueConstraint('inbound_answers_event', ['channel', 'event_key'])
        .execute();
      await db.schema.createIndex('inbound_answers_notification').on('inbound_answers').columns(['notification_id', 'created_at']).execute();

      await db.schema.createTable('send_pace')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('next_at', t.ts, (c) => c.notNull())
        .execute();

      await db.schema.alterTable('contact_methods').addColumn('verified_at', t.ts).execute();
      await db.schema.alterTable('contact_methods').addColumn('verify_code_hash', 'text').execute();
      await db.schema.alterTable('contact_methods').addColumn('verify_expires_at', t.ts).execute();
      await db.schema.alterTable('contact_methods').addColumn('verify_attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('contact_methods').addColumn('verify_sends', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('contact_methods').addColumn('verify_window_at', t.ts).execute();
    },
  };
};
export default migration;
