import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      // One-time links to set a password, made when a member is added. Only the SHA-256 of the token is
      // stored; `used_at` stays so a second use can be told "already used" rather than "unknown".
      await db.schema.createTable('password_links')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('expires_at', t.ts, (c) => c.notNull())
        .addColumn('used_at', t.ts)
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('password_links_user').on('password_links').columns(['user_id']).execute();
      // Removing a member unassigns their incidents.
      await db.schema.createIndex('incidents_org_assignee').on('incidents').columns(['org_id', 'assignee_id']).execute();
    },
  };
};
export default migration;
