import { sql, type Kysely } from 'kysely';
import { type MigrationFactory } from './types.ts';

/**
 * What a change of an alert feeds — its status counter, its outbox event, its live event, and PostgreSQL's
 * NOTIFY of the live stream — moves from triggers (0001, 0003, 0013, 0018) to the alert writer
 * (alerts/alert-writer.ts), which stores them in the same transaction. Constraints and indexes stay.
 */
const TRIGGERS: Record<'sqlite' | 'postgres', ReadonlyArray<readonly [table: string, trigger: string]>> = {
  sqlite: [
    ['alerts', 'alerts_count_insert'], ['alerts', 'alerts_count_update'], ['alerts', 'alerts_count_delete'],
    ['alerts', 'alerts_event_insert'], ['alerts', 'alerts_event_update'],
    ['alerts', 'alerts_live_insert'], ['alerts', 'alerts_live_update'],
  ],
  postgres: [
    ['alerts', 'alerts_inserted'], ['alerts', 'alerts_count_update'], ['alerts', 'alerts_count_delete'],
    ['alerts', 'alerts_event_update'], ['alerts', 'alerts_live_update'], ['live_events', 'live_events_notify'],
  ],
};
const PG_FUNCTIONS = ['alertflow_alerts_inserted', 'alertflow_count_alerts', 'alertflow_alert_events', 'alertflow_live_alerts', 'alertflow_live_notify'];

const migration: MigrationFactory = (dialect) => ({
  async up(db: Kysely<any>) {
    for (const [table, trigger] of TRIGGERS[dialect]) {
      await sql.raw(dialect === 'postgres' ? `drop trigger if exists ${trigger} on ${table}` : `drop trigger if exists ${trigger}`).execute(db);
    }
    if (dialect === 'postgres') for (const fn of PG_FUNCTIONS) await sql.raw(`drop function if exists ${fn}()`).execute(db);
  },
});
export default migration;
