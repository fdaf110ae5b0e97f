import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { type MigrationFactory } from './types.ts';

const digest = (key: string): string => createHash('sha256').update(key).digest('hex');

/**
 * Two more credentials per integration, for senders that speak PagerDuty's Events API v2 (a `routing_key` of
 * 32 lowercase hex characters, as PagerDuty's integration keys are) or Opsgenie's Alert API (a UUID-shaped
 * `GenieKey`). Like the ingest token they are kept in clear, since `integrations:write` callers are shown them
 * again; they are looked up by their SHA-256 digest, so that how long a lookup takes says nothing about how much
 * of a guessed key was right. Rotation and the cache rules follow the token's.
 */
const migration: MigrationFactory = (dialect) => ({
  async up(db: Kysely<any>) {
    for (const column of ['routing_key', 'routing_key_digest', 'genie_key', 'genie_key_digest']) {
      await db.schema.alterTable('integrations').addColumn(column, 'text', (c) => c.notNull().defaultTo('')).execute();
    }
    const rows = await db.selectFrom('integrations').select('id').execute();
    for (const { id } of rows as Array<{ id: string }>) {
      const routingKey = randomBytes(16).toString('hex');
      const genieKey = randomUUID();
      await db.updateTable('integrations')
        .set({ routing_key: routingKey, routing_key_digest: digest(routingKey), genie_key: genieKey, genie_key_digest: digest(genieKey) })
        .where('id', '=', id).execute();
    }
    await db.schema.createIndex('integrations_routing_key').on('integrations').column('routing_key_digest').unique().execute();
    await db.schema.createIndex('integrations_genie_key').on('integrations').column('genie_key_digest').unique().execute();
    // A changed key must reach every instance's ingest cache at once, as a changed token does (migration 0008).
    const events = 'update of routing_key_digest, genie_key_digest';
    if (dialect === 'postgres') {
      await sql.raw(`create trigger integrations_config_keys after ${events} on integrations for each row execute function alertflow_bump_config()`).execute(db);
    } else {
      const bump = (row: string) => `insert into config_versions (org_id, version) values (${row}.org_id, 1) on conflict (org_id) do update set version = config_versions.version + 1;`;
      await sql.raw(`create trigger integrations_config_keys after ${events} on integrations begin ${bump('old')} ${bump('new')} end`).execute(db);
    }
  },
});
export default migration;
