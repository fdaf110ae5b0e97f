import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type ImportLinkRow = DB['import_links'];

/** The links between imported objects and their source: organization first, then the source system. */
export function importsRepo() {
  const links = (db: Kysely<DB>, orgId: string, system: string) =>
    db.selectFrom('import_links').where('org_id', '=', orgId).where('system', '=', system);
  return {
    list: (db: Kysely<DB>, orgId: string, system: string) => links(db, orgId, system).selectAll().execute(),
    /** With `lock` (PostgreSQL), the row stays locked until the transaction ends, so two runs update it one after the other. */
    get: (db: Kysely<DB>, orgId: string, system: string, kind: string, sourceId: string, lock: boolean) => {
      const q = links(db, orgId, system).selectAll().where('kind', '=', kind).where('source_id', '=', sourceId);
      return (lock ? q.forUpdate() : q).executeTakeFirst();
    },
    /** Fails with a unique violation when another run linked this source object first. */
    insert: (db: Kysely<DB>, row: ImportLinkRow) => db.insertInto('import_links').values(row).execute(),
    update: (db: Kysely<DB>, orgId: string, system: string, kind: string, sourceId: string, changes: Pick<ImportLinkRow, 'target_id' | 'digest' | 'updated_at'>) =>
      db.updateTable('import_links').set(changes)
        .where('org_id', '=', orgId).where('system', '=', system).where('kind', '=', kind).where('source_id', '=', sourceId).execute(),
  };
}
export type ImportsRepo = ReturnType<typeof importsRepo>;
