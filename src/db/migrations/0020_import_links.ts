import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      // What `alertflow import` created from another tool, by the source's own id. The primary key is what keeps
      // two imports running at once from creating one source object twice: the second waits for the first's
      // row and then finds it (see docs/migration.md).
      await db.schema.createTable('import_links')
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('system', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('source_id', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        // A hash of what the last run wrote: the same hash next time means nothing changed upstream.
        .addColumn('digest', 'text', (c) => c.notNull())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .addPrimaryKeyConstraint('import_links_pk', ['org_id', 'system', 'kind', 'source_id'])
        .execute();
    },
  };
};
export default migration;
