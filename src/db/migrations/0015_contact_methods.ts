import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('contact_methods')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        // A removed member's methods and rules go with them, in the removal's transaction.
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('target', t.json, (c) => c.notNull())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        // What the rules' foreign key points at: a rule can only name a method of the same member.
        .addUniqueConstraint('contact_methods_id_user', ['id', 'user_id'])
        .execute();
      await db.schema.createIndex('contact_methods_org_user').on('contact_methods').columns(['org_id', 'user_id']).execute();
      await db.schema.createTable('notification_rules')
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('contact_method_id', 'text', (c) => c.notNull())
        .addColumn('after_minutes', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('notification_rules_pk', ['user_id', 'position'])
        // Deleting a method removes its rules.
        .addForeignKeyConstraint('notification_rules_method', ['contact_method_id', 'user_id'], 'contact_methods', ['id', 'user_id'], (fk) => fk.onDelete('cascade'))
        .execute();
      await db.schema.createIndex('notification_rules_by_method').on('notification_rules').columns(['contact_method_id', 'user_id']).execute();
    },
  };
};
export default migration;
