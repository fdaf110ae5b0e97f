import { sql, type Kysely } from 'kysely';
import { randomBytes } from 'node:crypto';
import { columnTypes, type MigrationFactory } from './types.ts';

const SQLITE_BUMP = (row: 'new' | 'old', delta: '+ 1' | '- 1') =>
  `insert into alert_counts (org_id, status, shard, n) values (${row}.org_id, ${row}.status, 0, 0 ${delta})
     on conflict (org_id, status, shard) do update set n = n ${delta};`;

/** SQLite has one writer at a time, so one counter row per organization and status is enough. */
const SQLITE_COUNT_TRIGGERS = [
  `create trigger alerts_count_insert after insert on alerts begin ${SQLITE_BUMP('new', '+ 1')} end`,
  `create trigger alerts_count_delete after delete on alerts begin ${SQLITE_BUMP('old', '- 1')} end`,
  `create trigger alerts_count_update after update of status on alerts when old.status is not new.status
     begin ${SQLITE_BUMP('old', '- 1')} ${SQLITE_BUMP('new', '+ 1')} end`,
];

/**
 * PostgreSQL: concurrent transactions would queue on one counter row, so each change lands on one of 16
 * random shards. A status move updates both rows of one shard in status order, so two moves cannot
 * lock the same pair of rows in opposite orders.
 */
export const POSTGRES_COUNT_FUNCTION = `create function alertflow_count_alerts() returns trigger language plpgsql as $$
   declare
     s integer := floor(random() * 16)::integer;
   begin
     if tg_op = 'INSERT' or (tg_op = 'UPDATE' and old.status > new.status) then
       insert into alert_counts as c (org_id, status, shard, n) values (new.org_id, new.status, s, 1)
         on conflict (org_id, status, shard) do update set n = c.n + 1;
     end if;
     if tg_op in ('UPDATE', 'DELETE') then
       insert into alert_counts as c (org_id, status, shard, n) values (old.org_id, old.status, s, -1)
         on conflict (org_id, status, shard) do update set n = c.n - 1;
     end if;
     if tg_op = 'UPDATE' and old.status < new.status then
       insert into alert_counts as c (org_id, status, shard, n) values (new.org_id, new.status, s, 1)
         on conflict (org_id, status, shard) do update set n = c.n + 1;
     end if;
     return null;
   end $$`;

const POSTGRES_COUNT_TRIGGERS = [
  POSTGRES_COUNT_FUNCTION,
  `create trigger alerts_count_insert after insert on alerts for each row execute function alertflow_count_alerts()`,
  `create trigger alerts_count_delete after delete on alerts for each row execute function alertflow_count_alerts()`,
  `create trigger alerts_count_update after update of status on alerts for each row
     when (old.status is distinct from new.status) execute function alertflow_count_alerts()`,
];

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      // The server secret signs list cursors; generated once and shared by every instance on this store.
      await db.insertInto('meta').values({ key: 'server_secret', value: randomBytes(32).toString('base64url') }).execute();

      await db.schema.createTable('orgs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .execute();

      await db.schema.createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .addUniqueConstraint('users_org_email', ['org_id', 'email'])
        .execute();
      await db.schema.createIndex('users_org_created').on('users').columns(['org_id', 'created_at', 'id']).execute();

      await db.schema.createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('expires_at', t.ts)
        .addColumn('revoked_at', t.ts)
        .addColumn('last_used_at', t.ts)
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('api_keys_org_created').on('api_keys').columns(['org_id', 'created_at', 'id']).execute();

      await db.schema.createTable('audit_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('actor_type', 'text', (c) => c.notNull())
        .addColumn('actor_id', 'text')
        .addColumn('target_type', 'text')
        .addColumn('target_id', 'text')
        .addColumn('ip', 'text')
        .addColumn('metadata', t.json, (c) => c.notNull())
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_org_created').on('audit_events').columns(['org_id', 'created_at', 'id']).execute();
      await db.schema.createIndex('audit_org_action_created').on('audit_events').columns(['org_id', 'action', 'created_at', 'id']).execute();

      await db.schema.createTable('integrations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('preset', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('mapping', t.json)
        .addColumn('client_id', 'text')
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('integrations_org_created').on('integrations').columns(['org_id', 'created_at', 'id']).execute();

      await db.schema.createTable('alerts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('integration_id', 'text')
        .addColumn('client_id', 'text')
        .addColumn('incident_id', 'text')
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('source', 'text')
        .addColumn('description', 'text')
        .addColumn('labels', t.json, (c) => c.notNull())
        .addColumn('annotations', t.json, (c) => c.notNull())
        .addColumn('payload', t.json, (c) => c.notNull())
        .addColumn('occurrences', 'integer', (c) => c.notNull())
        .addColumn('last_seen_at', t.ts, (c) => c.notNull())
        .addColumn('acknowledged_at', t.ts)
        .addColumn('acknowledged_by_type', 'text')
        .addColumn('acknowledged_by_id', 'text')
        .addColumn('resolved_at', t.ts)
        .addColumn('resolved_by_type', 'text')
        .addColumn('resolved_by_id', 'text')
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .execute();
      // The invariant "one open alert per organization and fingerprint" lives here, not in code:
      // ingest upserts against this partial unique index, so racing requests and instances converge.
      await sql`create unique index alerts_open_fingerprint on alerts (org_id, fingerprint)
                where status in ('firing', 'acknowledged', 'suppressed')`.execute(db);
      await db.schema.createIndex('alerts_org_created').on('alerts').columns(['org_id', 'created_at', 'id']).execute();
      await db.schema.createIndex('alerts_org_status_created').on('alerts').columns(['org_id', 'status', 'created_at', 'id']).execute();
      await db.schema.createIndex('alerts_org_fingerprint').on('alerts').columns(['org_id', 'fingerprint']).execute();

      // Alerts per organization and status, kept by triggers so that every path that inserts, moves or
      // deletes an alert keeps them exact; `meta.total` of an unfiltered or status-filtered list reads
      // them instead of counting the organization's alerts on every first page.
      await db.schema.createTable('alert_counts')
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('alert_counts_pk', ['org_id', 'status', 'shard'])
        .execute();
      for (const statement of dialect === 'postgres' ? POSTGRES_COUNT_TRIGGERS : SQLITE_COUNT_TRIGGERS) {
        await sql.raw(statement).execute(db);
      }
    },
  };
};
export default migration;
