import { type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

/**
 * Secret calendar feed URLs (docs/paging.md#calendar-feeds-and-my-on-call): a member's own shifts, or a schedule's, for
 * calendar apps that cannot send a header. Only the token's SHA-256 is kept; one feed per member or schedule.
 */
const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('calendar_feeds')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('subject_id', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('last_used_at', t.ts)
        .addUniqueConstraint('calendar_feeds_subject', ['org_id', 'kind', 'subject_id'])
        .execute();
    },
  };
};
export default migration;
