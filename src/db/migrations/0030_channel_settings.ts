import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

/**
 * Channels an organization sets up itself (its Slack app, its Telegram bot; docs: paging): their settings,
 * secrets in clear like other stored credentials and masked in every response; the one-time codes a member
 * links a chat with; and who each linked chat account is (a Telegram user is a member of this organization).
 */
const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('channel_settings')
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('config', t.json, (c) => c.notNull())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .addPrimaryKeyConstraint('channel_settings_pk', ['org_id', 'channel'])
        .execute();
      await db.schema.createTable('contact_links')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('expires_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createTable('channel_identities')
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('external_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addPrimaryKeyConstraint('channel_identities_pk', ['org_id', 'channel', 'external_id'])
        .execute();
    },
  };
};
export default migration;
