import { type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

/**
 * Working an incident (docs/paging.md, "Working an incident"): the end of a snooze, and escalations of a second
 * kind, a responder request (one member, or a policy's first step, paged once now beside any escalation).
 */
const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('incidents').addColumn('snoozed_until', t.ts).execute();
      await db.schema.alterTable('escalations').addColumn('kind', 'text', (c) => c.notNull().defaultTo('policy')).execute();
      // The newest policy escalation of an incident is what a re-triggered incident pages again.
      await db.schema.createIndex('escalations_incident_started').on('escalations').columns(['incident_id', 'started_at']).execute();
    },
  };
};
export default migration;
