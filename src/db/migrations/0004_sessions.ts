import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      // Dashboard sessions. The cookie carries a random id; only its SHA-256 is stored, so a copy of the
      // database cannot sign anyone in. Removing a user removes their sessions (the cascade).
      await db.schema.createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('last_seen_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();
      // The audit log page filters by actor; without this the filter would scan the organization's events.
      await db.schema.createIndex('audit_org_actor_created').on('audit_events').columns(['org_id', 'actor_type', 'actor_id', 'created_at', 'id']).execute();
      // Sign-in looks a person up by email across organizations.
      await db.schema.createIndex('users_email').on('users').columns(['email']).execute();
    },
  };
};
export default migration;
