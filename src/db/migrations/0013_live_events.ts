import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';
import type { Dialect } from '../database.ts';

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

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
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
  };
};
export default migration;
