import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      // A notification's source: a workflow action (as before), an escalation step, a heartbeat or a handoff notice.
      // Only workflow notifications name a workflow and action, so those two become nullable. SQLite cannot drop
      // NOT NULL in place: each column is renamed, added again without it, copied and the old one dropped.
      for (const column of ['workflow_id', 'action_index']) {
        if (dialect === 'postgres') {
          await sql`alter table notifications alter column ${sql.ref(column)} drop not null`.execute(db);
          continue;
        }
        const old = `${column}_0003`;
        await sql`alter table notifications rename column ${sql.ref(column)} to ${sql.ref(old)}`.execute(db);
        await sql`alter table notifications add column ${sql.ref(column)} ${sql.raw(column === 'action_index' ? 'integer' : 'text')}`.execute(db);
        await sql`update notifications set ${sql.ref(column)} = ${sql.ref(old)}`.execute(db);
        await sql`alter table notifications drop column ${sql.ref(old)}`.execute(db);
      }
      await db.schema.alterTable('notifications').addColumn('source', 'text', (c) => c.notNull().defaultTo('workflow')).execute();
      await db.schema.alterTable('notifications').addColumn('escalation_id', 'text').execute();
      await db.schema.alterTable('notifications').addColumn('step', 'integer').execute();
      await db.schema.alterTable('notifications').addColumn('recipient_id', 'text').execute();

      await db.schema.createTable('escalation_policies')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('steps', t.json, (c) => c.notNull())
        .addColumn('repeat', 'integer', (c) => c.notNull())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('escalation_policies_org_created').on('escalation_policies').columns(['org_id', 'created_at', 'id']).execute();

      // A running escalation keeps a copy of its policy's steps: editing or deleting the policy changes no page under way.
      await db.schema.createTable('escalations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('incident_id', 'text', (c) => c.notNull())
        .addColumn('policy_id', 'text', (c) => c.notNull())
        .addColumn('alert_id', 'text', (c) => c.notNull())
        .addColumn('policy', t.json, (c) => c.notNull())
        .addColumn('assignee_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('repeat', 'integer', (c) => c.notNull())
        .addColumn('step', 'integer', (c) => c.notNull())
        .addColumn('started_at', t.ts, (c) => c.notNull())
        .addColumn('stopped_at', t.ts)
        .addColumn('stop_reason', 'text')
        .execute();
      await sql`create unique index escalations_one_active on escalations (incident_id) where status = 'active'`.execute(db);
      // Each fired step once: the step job claims its row before it pages anyone.
      await db.schema.createTable('escalation_steps')
        .addColumn('escalation_id', 'text', (c) => c.notNull())
        .addColumn('repeat', 'integer', (c) => c.notNull())
        .addColumn('step', 'integer', (c) => c.notNull())
        .addColumn('fired_at', t.ts, (c) => c.notNull())
        .addPrimaryKeyConstraint('escalation_steps_pk', ['escalation_id', 'repeat', 'step'])
        .execute();
      // Acknowledge links are stateless (signed); a use is recorded so a second one says "already used".
      await db.schema.createTable('page_link_uses')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('incident_id', 'text', (c) => c.notNull())
        .addColumn('recipient_id', 'text')
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('used_at', t.ts, (c) => c.notNull())
        .execute();
    },
  };
};
export default migration;
