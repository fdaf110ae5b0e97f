import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** A report lists at most this many incidents (the total is counted). */
export const MAX_REPORT_INCIDENTS = 200;

export function reportsRepo() {
  return {
    client: (db: Kysely<DB>, orgId: string, id: string) =>
      db.selectFrom('clients').select(['id', 'name', 'slug', 'report_recipients']).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

    /** The client's incidents opened in [from, to), oldest first, and how many there were. */
    async incidents(db: Kysely<DB>, orgId: string, clientId: string, from: number, to: number) {
      const q = db.selectFrom('incidents').where('org_id', '=', orgId).where('client_id', '=', clientId).where('created_at', '>=', from).where('created_at', '<', to);
      const [rows, total] = await Promise.all([
        q.select(['id', 'number', 'title', 'severity', 'status', 'created_at', 'resolved_at']).orderBy('created_at').orderBy('id').limit(MAX_REPORT_INCIDENTS).execute(),
        q.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(total.n) };
    },

    /**
     * The client's critical alerts open at some time in [from, to): their open spans and `service` labels, from the
     * partial index of critical alerts (the clause repeats its predicate so SQLite uses it).
     */
    criticalSpans: (db: Kysely<DB>, orgId: string, clientId: string, from: number, to: number) =>
      db.selectFrom('alerts').select(['created_at', 'resolved_at', 'labels'])
        .where('org_id', '=', orgId).where('client_id', '=', clientId).where(sql<boolean>`severity = 'critical'`)
        .where('created_at', '<', to).where((eb) => eb.or([eb('resolved_at', 'is', null), eb('resolved_at', '>', from)]))
        .execute(),

    orgName: async (db: Kysely<DB>, orgId: string): Promise<string | null> =>
      (await db.selectFrom('orgs').select('name').where('id', '=', orgId).executeTakeFirst())?.name ?? null,

    /** Clients with report recipients, with their organization's zone (the monthly sender's work list). */
    withRecipients: (db: Kysely<DB>) =>
      db.selectFrom('clients').innerJoin('orgs', 'orgs.id', 'clients.org_id')
        .select(['clients.id', 'clients.org_id', 'clients.name', 'clients.report_recipients', 'orgs.timezone'])
        .where('clients.report_recipients', '<>', '[]').execute(),

    /**
     * Claims the monthly report of (client, period) for one recipient: true for the one caller whose insert made the
     * row, on any instance; everyone else sees the row and leaves it.
     */
    async claim(db: Kysely<DB>, row: { orgId: string; clientId: string; period: string; recipient: string; at: number }): Promise<boolean> {
      const r = await db.insertInto('client_report_sends').values({
        org_id: row.orgId, client_id: row.clientId, period: row.period, recipient: row.recipient, status: 'sending', error: null, created_at: row.at, updated_at: row.at,
      }).onConflict((oc) => oc.columns(['org_id', 'client_id', 'period', 'recipient']).doNothing()).returning('recipient').executeTakeFirst();
      return r !== undefined;
    },

    settle: (db: Kysely<DB>, key: { orgId: string; clientId: string; period: string; recipient: string }, status: 'sent' | 'failed', error: string | null, at: number) =>
      db.updateTable('client_report_sends').set({ status, error, updated_at: at })
        .where('org_id', '=', key.orgId).where('client_id', '=', key.clientId).where('period', '=', key.period).where('recipient', '=', key.recipient).execute(),

    /** Suppression windows that may have covered the client during [from, to): scoped to it or to everything. */
    windows: (db: Kysely<DB>, orgId: string, clientId: string, from: number, to: number) =>
      db.selectFrom('suppression_windows').select(['id', 'name', 'starts_at', 'ends_at', 'timezone', 'recurrence', 'client_id', 'matchers'])
        .where('org_id', '=', orgId).where((eb) => eb.or([eb('client_id', '=', clientId), eb('client_id', 'is', null)]))
        .where('starts_at', '<', to).where((eb) => eb.or([eb('recurrence', 'is not', null), eb('ends_at', '>', from)]))
        .orderBy('starts_at').execute(),
  };
}
export type ReportsRepo = ReturnType<typeof reportsRepo>;
