import { sql, type Kysely } from 'kysely';
import { HAS_WORKFLOW } from './0003_oncall_workflows_incidents.ts';
import { type MigrationFactory } from './types.ts';

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

const migration: MigrationFactory = (dialect) => {
  return {
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
  };
};
export default migration;
