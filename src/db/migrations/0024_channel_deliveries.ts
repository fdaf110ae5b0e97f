import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

/**
 * Every notification goes through the channel registry and its one delivery log (docs: paging): notices
 * about no alert (a schedule's handoff, a test page) are notifications too, so `alert_id` becomes nullable
 * and such a notification keeps its text in `payload`. The handoff notices sent so far move into the log
 * under the same idempotency keys, so a shift already announced is not announced again.
 */
const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') {
        await sql`alter table notifications alter column alert_id drop not null`.execute(db);
      } else {
        // SQLite cannot drop NOT NULL in place, nor drop an indexed column: the index goes and comes back.
        await sql`drop index notifications_alert`.execute(db);
        await sql`alter table notifications rename column alert_id to alert_id_0003`.execute(db);
        await sql`alter table notifications add column alert_id text`.execute(db);
        await sql`update notifications set alert_id = alert_id_0003`.execute(db);
        await sql`alter table notifications drop column alert_id_0003`.execute(db);
        await db.schema.createIndex('notifications_alert').on('notifications').columns(['alert_id', 'created_at', 'id']).execute();
      }
      await db.schema.alterTable('notifications').addColumn('payload', t.json).execute();

      const notices = await db.selectFrom('handoff_notices as h').leftJoin('users as u', 'u.id', 'h.user_id')
        .select(['h.idempotency_key', 'h.org_id', 'h.user_id', 'h.status', 'h.error', 'h.created_at', 'u.email']).execute();
      for (const n of notices as Array<{ idempotency_key: string; org_id: string; user_id: string; status: string; error: string | null; created_at: number; email: string | null }>) {
        // A notice still `pending` was being sent when its process stopped: it is not sent again.
        const failed = n.status !== 'sent';
        await db.insertInto('notifications').values({
          id: `ntf_${createHash('sha256').update(n.idempotency_key).digest('hex').slice(0, 24)}`,
          org_id: n.org_id, alert_id: null, incident_id: null, workflow_id: null, action_index: null,
          source: 'handoff', escalation_id: null, step: null, recipient_id: n.user_id,
          channel: 'email', target: n.email ?? '(member removed)',
          status: failed ? 'failed' : 'sent', attempts: 1,
          last_error: failed ? (n.error ?? 'Interrupted') : null, response_status: null,
          created_at: n.created_at, updated_at: n.created_at, sent_at: failed ? null : n.created_at,
          idempotency_key: n.idempotency_key, payload: null,
        }).onConflict((oc) => oc.column('idempotency_key').doNothing()).execute();
      }
    },
  };
};
export default migration;
