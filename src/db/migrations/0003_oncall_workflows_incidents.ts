import { sql, type Kysely } from 'kysely';
import { POSTGRES_COUNT_FUNCTION } from './0001_core.ts';
import { columnTypes, type MigrationFactory } from './types.ts';

/** Only organizations with an enabled workflow get events: nothing would read the others'. */
export const HAS_WORKFLOW = (row: string) => `exists (select 1 from workflows w where w.org_id = ${row}.org_id and w.enabled = 1)`;

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

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
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
  };
};
export default migration;
