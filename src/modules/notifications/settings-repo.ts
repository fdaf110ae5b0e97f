import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type SettingsRow = DB['channel_settings'];

/** Each organization's own set-up of the channels that need one; every query names the organization. */
export function settingsRepo() {
  return {
    get: (db: Kysely<DB>, orgId: string, channel: string) =>
      db.selectFrom('channel_settings').selectAll().where('org_id', '=', orgId).where('channel', '=', channel).executeTakeFirst(),
    list: (db: Kysely<DB>, orgId: string) => db.selectFrom('channel_settings').selectAll().where('org_id', '=', orgId).execute(),
    put: (db: Kysely<DB>, row: SettingsRow) =>
      db.insertInto('channel_settings').values(row)
        .onConflict((oc) => oc.columns(['org_id', 'channel']).doUpdateSet({ config: row.config, updated_at: row.updated_at })).execute(),
    remove: async (db: Kysely<DB>, orgId: string, channel: string): Promise<boolean> =>
      Number((await db.deleteFrom('channel_settings').where('org_id', '=', orgId).where('channel', '=', channel).executeTakeFirst()).numDeletedRows) === 1,
  };
}
export type SettingsRepo = ReturnType<typeof settingsRepo>;
