import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { randomBytes } from 'node:crypto';
import type { StoreConfig } from '../config.ts';
import { createStore, type Dialect, type Store } from './database.ts';
import { isSqliteBusy } from './sqlite-database.ts';

/** Types that differ by dialect; everything else in the migrations is written once. */
function types(dialect: Dialect) {
  return {
    json: dialect === 'postgres' ? 'jsonb' : 'text',
    ts: dialect === 'postgres' ? 'bigint' : 'integer',
  } as const;
}

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
const POSTGRES_COUNT_FUNCTION = `create function alertflow_count_alerts() returns trigger language plpgsql as $$
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

/** Only organizations with an enabled workflow get events: nothing would read the others'. */
const HAS_WORKFLOW = (row: string) => `exists (select 1 from workflows w where w.org_id = ${row}.org_id and w.enabled = 1)`;

/**
 * Alert changes as workflow triggers: created (not when stored suppressed), acknowledged, resolved, reopened
 * (suppressed → firing). Changes of an alert in an incident always count: its incident follows them.
 */
const SQLITE_EVENT_TRIGGERS = [
  `create trigger alerts_event_insert after insert on alerts when new.status in ('firing', 'acknowledged') and ${HAS_WORKFLOW('new')}
     begin insert into alert_events (org_id, alert_id, type, created_at) values (new.org_id, new.id, 'alert.created', new.created_at); end`,
  `create trigger alerts_event_update after update of status on alerts
     when old.status is not new.status and new.status in ('acknowledged', 'resolved', 'firing') and (new.status <> 'firing' or old.status = 'suppressed')
       and (${HAS_WORKFLOW('new')} or new.incident_id is not null)
     begin insert into alert_events (org_id, alert_id, type, created_at)
       values (new.org_id, new.id, case new.status when 'firing' then 'alert.reopened' else 'alert.' || new.status end, new.updated_at); end`,
];

const POSTGRES_EVENT_TRIGGERS = [
  `create function alertflow_alert_events() returns trigger language plpgsql as $$
   begin
     if ${HAS_WORKFLOW('new')} or (tg_op = 'UPDATE' and new.incident_id is not null) then
       insert into alert_events (org_id, alert_id, type, created_at)
         values (new.org_id, new.id,
                 case when tg_op = 'INSERT' then 'alert.created' when new.status = 'firing' then 'alert.reopened' else 'alert.' || new.status end,
                 case when tg_op = 'INSERT' then new.created_at else new.updated_at end);
       perform pg_notify('alertflow_alert_events', '');
     end if;
     return null;
   end $$`,
  `create trigger alerts_event_insert after insert on alerts for each row when (new.status in ('firing', 'acknowledged'))
     execute function alertflow_alert_events()`,
  `create trigger alerts_event_update after update of status on alerts for each row
     when (old.status is distinct from new.status and new.status in ('acknowledged', 'resolved', 'firing') and (new.status <> 'firing' or old.status = 'suppressed'))
     execute function alertflow_alert_events()`,
];

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

/**
 * What the dashboard's live stream relays: every change of an alert (new, status, another occurrence, joined an
 * incident) and of an incident, written by triggers in the changing transaction, so every writer (ingest, API,
 * workers, other instances) feeds it without knowing. Rows live an hour (see live-service.ts).
 */
const LIVE_ALERT_UPDATE = `case when new.status = 'resolved' and old.status <> 'resolved' then 'alert.resolved' else 'alert.updated' end`;
const LIVE_INSERT = (type: string) => `insert into live_events (org_id, type, entity_id, status, severity, title, created_at)
  values (new.org_id, ${type}, new.id, new.status, new.severity, new.title, new.updated_at)`;
const LIVE_ALERT_CHANGED = 'old.status is distinct from new.status or old.occurrences is distinct from new.occurrences or old.incident_id is distinct from new.incident_id';
const LIVE_INCIDENT_CHANGED = 'old.status is distinct from new.status or old.assignee_id is distinct from new.assignee_id or old.alert_count is distinct from new.alert_count or old.severity is distinct from new.severity';

function liveEventTriggers(dialect: Dialect): string[] {
  const kinds = [
    { table: 'alerts', created: `'alert.created'`, updated: LIVE_ALERT_UPDATE, changed: LIVE_ALERT_CHANGED },
    { table: 'incidents', created: `'incident.created'`, updated: `'incident.updated'`, changed: LIVE_INCIDENT_CHANGED },
  ];
  if (dialect === 'sqlite') {
    return kinds.flatMap((k) => [
      `create trigger ${k.table}_live_insert after insert on ${k.table} begin ${LIVE_INSERT(k.created)}; end`,
      `create trigger ${k.table}_live_update after update on ${k.table} when ${k.changed.replaceAll('is distinct from', 'is not')}
         begin ${LIVE_INSERT(k.updated)}; end`,
    ]);
  }
  return [
    ...kinds.flatMap((k) => [
      `create function alertflow_live_${k.table}() returns trigger language plpgsql as $$
       begin
         if tg_op = 'INSERT' then ${LIVE_INSERT(k.created)}; else ${LIVE_INSERT(k.updated)}; end if;
         return null;
       end $$`,
      `create trigger ${k.table}_live_insert after insert on ${k.table} for each row execute function alertflow_live_${k.table}()`,
      `create trigger ${k.table}_live_update after update on ${k.table} for each row when (${k.changed}) execute function alertflow_live_${k.table}()`,
    ]),
    // One notification per statement, not per row: a group commit of 500 alerts wakes each listener once.
    `create function alertflow_live_notify() returns trigger language plpgsql as $$
     begin perform pg_notify('alertflow_events', ''); return null; end $$`,
    `create trigger live_events_notify after insert on live_events for each statement execute function alertflow_live_notify()`,
  ];
}

/**
 * PostgreSQL: what a new alert feeds (its status counter, its workflow event, its live event), once per INSERT
 * statement over the statement's transition table instead of once per row. A group-commit batch of 50 new alerts
 * ran 150 row-trigger calls, updated its counter row 50 times (each update a new version of the row that the next
 * one had to walk past) and sent 50 live_events inserts, each with its own pg_notify: about half of a new alert's
 * PostgreSQL CPU (bench/pg-insert-cost.ts). Updates and deletes keep their row triggers: they need each row's
 * old status, and a trigger with a transition table cannot be limited to `update of status`.
 */
const POSTGRES_INSERT_TRIGGERS = [
  'drop trigger alerts_count_insert on alerts',
  'drop trigger alerts_event_insert on alerts',
  'drop trigger alerts_live_insert on alerts',
  `create function alertflow_alerts_inserted() returns trigger language plpgsql as $$
   begin
     -- An upsert whose rows all matched open alerts inserted none.
     if not exists (select 1 from inserted) then return null; end if;
     -- One counter change per organization and status, on this connection's shard (see 0003), in key order so
     -- that two transactions that meet on a shard lock its rows in the same order.
     insert into alert_counts as c (org_id, status, shard, n)
       select org_id, status, pg_backend_pid() % 16, count(*) from inserted group by org_id, status order by org_id, status
       on conflict (org_id, status, shard) do update set n = c.n + excluded.n;
     insert into alert_events (org_id, alert_id, type, created_at)
       select i.org_id, i.id, 'alert.created', i.created_at from inserted i
       where i.status in ('firing', 'acknowledged') and ${HAS_WORKFLOW('i')};
     if found then perform pg_notify('alertflow_alert_events', ''); end if;
     insert into live_events (org_id, type, entity_id, status, severity, title, created_at)
       select org_id, 'alert.created', id, status, severity, title, updated_at from inserted;
     return null;
   end $$`,
  `create trigger alerts_inserted after insert on alerts referencing new table as inserted
     for each statement execute function alertflow_alerts_inserted()`,
];

/** Numbered, forward-only migrations. Never edit one that has shipped; add the next number. */
function migrations(dialect: Dialect): Record<string, Migration> {
  const t = types(dialect);
  return {
    '0001_core': {
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
    },
    '0002_integrations_clients_suppression': {
      async up(db: Kysely<any>) {
        await db.schema.createTable('clients')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('slug', 'text', (c) => c.notNull())
          .addColumn('contact_email', 'text')
          .addColumn('notes', 'text')
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          .addUniqueConstraint('clients_org_slug', ['org_id', 'slug'])
          .execute();
        await db.schema.createIndex('clients_org_created').on('clients').columns(['org_id', 'created_at', 'id']).execute();

        await db.schema.createTable('suppression_windows')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('description', 'text')
          .addColumn('starts_at', t.ts, (c) => c.notNull())
          .addColumn('ends_at', t.ts, (c) => c.notNull())
          .addColumn('matchers', t.json, (c) => c.notNull())
          .addColumn('recurrence', 'text')
          .addColumn('timezone', 'text', (c) => c.notNull())
          .addColumn('client_id', 'text')
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('suppression_org_created').on('suppression_windows').columns(['org_id', 'created_at', 'id']).execute();

        // Which window holds a suppressed alert: the sweeper returns them to firing when it ends.
        await db.schema.alterTable('alerts').addColumn('suppression_id', 'text').execute();
        await sql`create index alerts_suppressed_by on alerts (suppression_id) where status = 'suppressed'`.execute(db);
        await db.schema.createIndex('alerts_org_client_created').on('alerts').columns(['org_id', 'client_id', 'created_at', 'id']).execute();

        // Per-integration delivery counters, so a user can see whether a sender is reaching us.
        await db.schema.alterTable('integrations').addColumn('accepted_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('integrations').addColumn('rejected_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('integrations').addColumn('last_alert_at', t.ts).execute();
        await db.schema.alterTable('integrations').addColumn('last_rejected_at', t.ts).execute();

        await db.schema.createTable('integration_rejections')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('integration_id', 'text', (c) => c.notNull())
          .addColumn('status', 'integer', (c) => c.notNull())
          .addColumn('code', 'text', (c) => c.notNull())
          .addColumn('error', 'text', (c) => c.notNull())
          .addColumn('details', t.json)
          .addColumn('payload', 'text')
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('rejections_integration_created').on('integration_rejections').columns(['integration_id', 'created_at', 'id']).execute();
      },
    },
    '0003_oncall_workflows_incidents': {
      async up(db: Kysely<any>) {
        await db.schema.createTable('schedules')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('description', 'text')
          .addColumn('timezone', 'text', (c) => c.notNull())
          .addColumn('layers', t.json, (c) => c.notNull())
          .addColumn('overrides', t.json, (c) => c.notNull())
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('schedules_org_created').on('schedules').columns(['org_id', 'created_at', 'id']).execute();

        await db.schema.createTable('workflows')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('description', 'text')
          .addColumn('enabled', 'integer', (c) => c.notNull())
          .addColumn('trigger', 'text', (c) => c.notNull())
          .addColumn('conditions', t.json)
          .addColumn('actions', t.json, (c) => c.notNull())
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('workflows_org_created').on('workflows').columns(['org_id', 'created_at', 'id']).execute();
        await db.schema.createIndex('workflows_org_trigger').on('workflows').columns(['org_id', 'trigger', 'enabled']).execute();

        // The outbox: what happened to an alert that workflows may act on. Triggers write it in the same
        // statement as the change (ingest, the API, the suppression sweeper alike), and only for organizations
        // with an enabled workflow, so an event can be neither lost nor invented, and idle orgs pay nothing.
        await db.schema.createTable('alert_events')
          .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('alert_id', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .execute();
        for (const statement of dialect === 'postgres' ? POSTGRES_EVENT_TRIGGERS : SQLITE_EVENT_TRIGGERS) await sql.raw(statement).execute(db);
        // Payloads with many alerts (itemsPath) insert many rows in one transaction: a random counter shard per row
        // made concurrent transactions lock shard rows in opposite orders and deadlock. One shard per connection
        // keeps a transaction on one shard, and concurrent connections on different ones.
        if (dialect === 'postgres') {
          await sql.raw(POSTGRES_COUNT_FUNCTION.replace('create function', 'create or replace function').replace('floor(random() * 16)::integer', 'pg_backend_pid() % 16')).execute(db);
        }

        // SQLite's job queue (PostgreSQL uses pg-boss's own tables).
        await db.schema.createTable('jobs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('queue', 'text', (c) => c.notNull())
          .addColumn('data', t.json, (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull())
          .addColumn('max_attempts', 'integer', (c) => c.notNull())
          .addColumn('run_at', t.ts, (c) => c.notNull())
          .addColumn('locked_until', t.ts)
          .addColumn('last_error', 'text')
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('jobs_due').on('jobs').columns(['state', 'run_at']).execute();

        await db.schema.createTable('workflow_runs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('workflow_id', 'text', (c) => c.notNull())
          .addColumn('alert_id', 'text', (c) => c.notNull())
          .addColumn('event_id', 'text', (c) => c.notNull())
          .addColumn('trigger', 'text', (c) => c.notNull())
          .addColumn('matched', 'integer', (c) => c.notNull())
          .addColumn('actions', t.json, (c) => c.notNull())
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          // One run per workflow and event, however often the job that runs it is retried.
          .addUniqueConstraint('workflow_runs_once', ['workflow_id', 'event_id'])
          .execute();
        await db.schema.createIndex('workflow_runs_workflow_created').on('workflow_runs').columns(['workflow_id', 'created_at', 'id']).execute();

        await db.schema.createTable('incident_counters')
          .addColumn('org_id', 'text', (c) => c.primaryKey())
          .addColumn('last_number', 'integer', (c) => c.notNull())
          .execute();
        await db.schema.createTable('incidents')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('number', 'integer', (c) => c.notNull())
          .addColumn('workflow_id', 'text')
          .addColumn('group_key', 'text', (c) => c.notNull())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('severity', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('assignee_id', 'text')
          .addColumn('alert_count', 'integer', (c) => c.notNull())
          .addColumn('client_id', 'text')
          .addColumn('acknowledged_at', t.ts)
          .addColumn('resolved_at', t.ts)
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          .addUniqueConstraint('incidents_org_number', ['org_id', 'number'])
          .execute();
        // One open incident per workflow and group key, whatever races.
        await sql`create unique index incidents_open_group on incidents (workflow_id, group_key)
                  where status in ('triggered', 'acknowledged')`.execute(db);
        await db.schema.createIndex('incidents_org_created').on('incidents').columns(['org_id', 'created_at', 'id']).execute();
        await db.schema.createIndex('alerts_incident').on('alerts').columns(['incident_id']).execute();

        await db.schema.createTable('incident_events')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('incident_id', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('actor_type', 'text', (c) => c.notNull())
          .addColumn('actor_id', 'text')
          .addColumn('data', t.json, (c) => c.notNull())
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('incident_events_incident_created').on('incident_events').columns(['incident_id', 'created_at', 'id']).execute();

        await db.schema.createTable('notifications')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('alert_id', 'text', (c) => c.notNull())
          .addColumn('incident_id', 'text')
          .addColumn('workflow_id', 'text', (c) => c.notNull())
          .addColumn('action_index', 'integer', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('target', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull())
          .addColumn('last_error', 'text')
          .addColumn('response_status', 'integer')
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          .addColumn('sent_at', t.ts)
          // The idempotency key: one notification per alert event, workflow and action, however often its job runs.
          .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
          .execute();
        await db.schema.createIndex('notifications_alert').on('notifications').columns(['alert_id', 'created_at', 'id']).execute();
        await db.schema.createIndex('notifications_incident').on('notifications').columns(['incident_id', 'created_at', 'id']).execute();
      },
    },
    '0004_sessions': {
      async up(db: Kysely<any>) {
        // Dashboard sessions. The cookie carries a random id; only its SHA-256 is stored, so a copy of the
        // database cannot sign anyone in. Removing a user removes their sessions (the cascade).
        await db.schema.createTable('sessions')
          .addColumn('id_hash', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('csrf_token', 'text', (c) => c.notNull())
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('last_seen_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();
        // The audit log page filters by actor; without this the filter would scan the organization's events.
        await db.schema.createIndex('audit_org_actor_created').on('audit_events').columns(['org_id', 'actor_type', 'actor_id', 'created_at', 'id']).execute();
        // Sign-in looks a person up by email across organizations.
        await db.schema.createIndex('users_email').on('users').columns(['email']).execute();
      },
    },
    '0005_fair_jobs': {
      async up(db: Kysely<any>) {
        // The jobs table's fair scheduling (SQLite's queue; pg-boss has both natively): the highest priority
        // is taken first, and a group (the organization) holds at most its share of the running jobs.
        await db.schema.alterTable('jobs').addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('jobs').addColumn('group_id', 'text').execute();
        await db.schema.createIndex('jobs_queue_priority').on('jobs').columns(['queue', 'state', 'priority', 'run_at']).execute();
      },
    },
    '0008_config_versions': {
      async up(db: Kysely<any>) {
        await db.schema.createTable('config_versions')
          .addColumn('org_id', 'text', (c) => c.primaryKey())
          .addColumn('version', t.ts, (c) => c.notNull())
          .execute();
        for (const statement of configVersionTriggers(dialect)) await sql.raw(statement).execute(db);
      },
    },
    '0009_password_links': {
      async up(db: Kysely<any>) {
        // One-time links to set a password, made when a member is added. Only the SHA-256 of the token is
        // stored; `used_at` stays so a second use can be told "already used" rather than "unknown".
        await db.schema.createTable('password_links')
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('expires_at', t.ts, (c) => c.notNull())
          .addColumn('used_at', t.ts)
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('password_links_user').on('password_links').columns(['user_id']).execute();
        // Removing a member unassigns their incidents.
        await db.schema.createIndex('incidents_org_assignee').on('incidents').columns(['org_id', 'assignee_id']).execute();
      },
    },
    '0012_heartbeats': {
      async up(db: Kysely<any>) {
        await db.schema.createTable('heartbeats')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('interval_seconds', 'integer', (c) => c.notNull())
          .addColumn('grace_seconds', 'integer', (c) => c.notNull())
          .addColumn('severity', 'text', (c) => c.notNull())
          .addColumn('client_id', 'text')
          .addColumn('labels', t.json, (c) => c.notNull())
          .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
          // Only a hash of the ping token is kept: the token is shown once, when made.
          .addColumn('token_hash', 'text', (c) => c.notNull().unique())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('last_ping_at', t.ts)
          // When it is missed unless pinged before: kept with the row, so the checker's look is one index range.
          .addColumn('due_at', t.ts, (c) => c.notNull())
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('heartbeats_org_created').on('heartbeats').columns(['org_id', 'created_at', 'id']).execute();
        await db.schema.createIndex('heartbeats_due').on('heartbeats').columns(['due_at']).execute();
      },
    },
    '0013_live_events': {
      async up(db: Kysely<any>) {
        // SQLite: a rowid, not AUTOINCREMENT (whose sqlite_sequence write costs every ingest upsert ~10 µs more);
        // numbers are never reused because pruning always keeps the newest row (see live-repo.ts).
        await db.schema.createTable('live_events')
          .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('entity_id', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('severity', 'text', (c) => c.notNull())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .execute();
        // A resuming stream reads its organization's rows after its last id.
        await db.schema.createIndex('live_events_org_seq').on('live_events').columns(['org_id', 'seq']).execute();
        for (const statement of liveEventTriggers(dialect)) await sql.raw(statement).execute(db);
      },
    },
    '0014_escalations': {
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
    },
    '0015_contact_methods': {
      async up(db: Kysely<any>) {
        await db.schema.createTable('contact_methods')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          // A removed member's methods and rules go with them, in the removal's transaction.
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('label', 'text', (c) => c.notNull())
          .addColumn('target', t.json, (c) => c.notNull())
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .addColumn('updated_at', t.ts, (c) => c.notNull())
          // What the rules' foreign key points at: a rule can only name a method of the same member.
          .addUniqueConstraint('contact_methods_id_user', ['id', 'user_id'])
          .execute();
        await db.schema.createIndex('contact_methods_org_user').on('contact_methods').columns(['org_id', 'user_id']).execute();
        await db.schema.createTable('notification_rules')
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('contact_method_id', 'text', (c) => c.notNull())
          .addColumn('after_minutes', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('notification_rules_pk', ['user_id', 'position'])
          // Deleting a method removes its rules.
          .addForeignKeyConstraint('notification_rules_method', ['contact_method_id', 'user_id'], 'contact_methods', ['id', 'user_id'], (fk) => fk.onDelete('cascade'))
          .execute();
        await db.schema.createIndex('notification_rules_by_method').on('notification_rules').columns(['contact_method_id', 'user_id']).execute();
      },
    },
    '0016_handoff_notices': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('schedules').addColumn('handoff_notices', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        // One row per (schedule, shift start, person): the primary key is what makes a notice go once, whatever
        // number of instances look for shifts starting.
        await db.schema.createTable('handoff_notices')
          .addColumn('idempotency_key', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
          .addColumn('schedule_id', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('starts_at', t.ts, (c) => c.notNull())
          .addColumn('ends_at', t.ts)
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('error', 'text')
          .addColumn('created_at', t.ts, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('handoff_notices_schedule').on('handoff_notices').columns(['org_id', 'schedule_id', 'starts_at']).execute();
      },
    },
    '0017_alert_fingerprint_indexes': {
      async up(db: Kysely<any>) {
        // A new alert wrote its fingerprint into two indexes: the open one (the upsert's) and one over every
        // alert (the list's fingerprint filter). Fingerprints are random, so each entry dirties a page of its
        // own: that second index was ~40 % of an insert's CPU. Now the list reads open alerts from the open
        // index and the others from this one, which an alert joins only when it closes.
        await sql`drop index alerts_org_fingerprint`.execute(db);
        await sql`create index alerts_closed_fingerprint on alerts (org_id, fingerprint)
                  where status not in ('firing', 'acknowledged', 'suppressed')`.execute(db);
      },
    },
    '0018_new_alert_writes': {
      async up(db: Kysely<any>) {
        // A new alert has no incident and most have no client, yet each wrote a NULL entry into both indexes:
        // on PostgreSQL ~10 % of its insert's CPU and ~12 % of its WAL. Every reader of these indexes asks for one
        // incident or one client (`= value`, which implies not null), so they read the partial indexes alike.
        await sql`drop index alerts_incident`.execute(db);
        await sql`create index alerts_incident on alerts (incident_id) where incident_id is not null`.execute(db);
        await sql`drop index alerts_org_client_created`.execute(db);
        await sql`create index alerts_org_client_created on alerts (org_id, client_id, created_at, id) where client_id is not null`.execute(db);
        // SQLite keeps its row triggers: a statement there inserts one alert (see ingest-writer.ts).
        if (dialect === 'postgres') for (const statement of POSTGRES_INSERT_TRIGGERS) await sql.raw(statement).execute(db);
      },
    },
  };
}

/** Brings the store to the latest migration, or to `upTo` (a migration's name: how tests build an older database). */
export async function migrate(store: Store, upTo?: string): Promise<string[]> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations(store.dialect) },
  });
  const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

const START_ATTEMPTS = 20;

/**
 * Opens the store and brings it to the latest migration. Processes that open one fresh SQLite file at the
 * same moment (two instances, or the CLI beside a starting server) can meet SQLITE_BUSY_SNAPSHOT, which
 * SQLite reports at once instead of waiting: the losing process closes, waits a moment and starts again.
 */
export async function openMigratedStore(config: StoreConfig): Promise<{ store: Store; applied: string[] }> {
  for (let attempt = 1; ; attempt++) {
    const store = await createStore(config);
    try {
      return { store, applied: await migrate(store) };
    } catch (err) {
      await store.close().catch(() => undefined);
      if (!isSqliteBusy(err) || attempt >= START_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 25 + Math.random() * 100));
    }
  }
}
