import { sql, type Kysely } from 'kysely';
import { type MigrationFactory } from './types.ts';

/**
 * The config-version bumps (0008, 0019) and the incidents' live events (0013) move from triggers to the code
 * that writes those rows (config-versions.ts, incidents-repo.ts, live-feed.ts), in the same transactions.
 */
const TRIGGERS: ReadonlyArray<readonly [table: string, trigger: string]> = [
  ['integrations', 'integrations_config_delete'],
  ['integrations', 'integrations_config_update'],
  ['integrations', 'integrations_config_keys'],
  ['suppression_windows', 'suppression_windows_config_insert'],
  ['suppression_windows', 'suppression_windows_config_delete'],
  ['suppression_windows', 'suppression_windows_config_update'],
  ['clients', 'clients_config_insert'],
  ['clients', 'clients_config_delete'],
  ['clients', 'clients_config_update'],
  ['incidents', 'incidents_live_insert'],
  ['incidents', 'incidents_live_update'],
];

const migration: MigrationFactory = (dialect) => ({
  async up(db: Kysely<any>) {
    for (const [table, trigger] of TRIGGERS) {
      await sql.raw(dialect === 'postgres' ? `drop trigger if exists ${trigger} on ${table}` : `drop trigger if exists ${trigger}`).execute(db);
    }
    if (dialect === 'postgres') {
      await sql`drop function if exists alertflow_bump_config()`.execute(db);
      await sql`drop function if exists alertflow_live_incidents()`.execute(db);
    }
  },
});
export default migration;
