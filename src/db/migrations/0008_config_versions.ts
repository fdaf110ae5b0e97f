import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';
import type { Dialect } from '../database.ts';

/**
 * What ingest caches per organization (integrations by token, suppression windows, client slugs) is valid
 * while the organization's row in `config_versions` keeps its number: every change that matters bumps it in
 * the changing transaction, whichever instance or process makes it, so a reader that finds the number it
 * cached with knows its copy is current. Counter flushes (accepted_count…) touch none of the watched columns.
 */
const CONFIG_SOURCES = [
  { table: 'integrations', events: ['delete', 'update of token, enabled, org_id, preset, mapping, client_id'] },
  { table: 'suppression_windows', events: ['insert', 'delete', 'update'] },
  { table: 'clients', events: ['insert', 'delete', 'update of slug, org_id'] },
] as const;
const BUMP_SQL = (orgId: string) =>
  `insert into config_versions (org_id, version) values (${orgId}, 1) on conflict (org_id) do update set version = config_versions.version + 1`;

function configVersionTriggers(dialect: Dialect): string[] {
  const out: string[] = [];
  if (dialect === 'postgres') {
    // A row moved to another organization (org_id updated) invalidates both.
    out.push(`create function alertflow_bump_config() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' then ${BUMP_SQL('old.org_id')}; end if;
        if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.org_id is distinct from old.org_id) then ${BUMP_SQL('new.org_id')}; end if;
        return null;
      end $$`);
  }
  for (const { table, events } of CONFIG_SOURCES) {
    for (const event of events) {
      const name = `${table}_config_${event.split(' ')[0]}`;
      if (dialect === 'postgres') {
        out.push(`create trigger ${name} after ${event} on ${table} for each row execute function alertflow_bump_config()`);
      } else {
        const rows = event === 'insert' ? ['new'] : event === 'delete' ? ['old'] : ['old', 'new'];
        out.push(`create trigger ${name} after ${event} on ${table} begin ${rows.map((r) => `${BUMP_SQL(`${r}.org_id`)};`).join(' ')} end`);
      }
    }
  }
  return out;
}

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('config_versions')
        .addColumn('org_id', 'text', (c) => c.primaryKey())
        .addColumn('version', t.ts, (c) => c.notNull())
        .execute();
      for (const statement of configVersionTriggers(dialect)) await sql.raw(statement).execute(db);
    },
  };
};
export default migration;
