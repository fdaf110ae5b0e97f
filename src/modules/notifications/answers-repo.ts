import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type AnswerRow = DB['inbound_answers'];

/** Reply codes (unique per paged address while they live) and the log of answers that came back through a channel. */
export function answersRepo() {
  return {
    /** The live code an address already has for an incident (a repeated page keeps its code). */
    liveCode: async (db: Kysely<DB>, address: string, incidentId: string, now: number): Promise<string | null> =>
      (await db.selectFrom('reply_codes').select('code').where('address', '=', address).where('incident_id', '=', incidentId)
        .where('expires_at', '>', now).executeTakeFirst())?.code ?? null,

    /**
     * Takes `code` for the address unless another live page holds it: one conditional upsert (an expired code
     * is taken over, a live one is not), so two pages sent at once never share a code. True when taken.
     */
    takeCode: async (db: Kysely<DB>, row: DB['reply_codes'], now: number): Promise<boolean> =>
      (await db.insertInto('reply_codes').values(row)
        .onConflict((oc) => oc.columns(['address', 'code']).doUpdateSet({
          org_id: row.org_id, notification_id: row.notification_id, incident_id: row.incident_id, expires_at: row.expires_at,
        }).where((eb) => eb.or([eb('reply_codes.expires_at', '<=', now), eb('reply_codes.incident_id', '=', row.incident_id)])))
        .returning('code').executeTakeFirst()) !== undefined,

    /** The notification a live code of an address names. */
    byCode: (db: Kysely<DB>, address: string, code: string, now: number) =>
      db.selectFrom('reply_codes').select('notification_id').where('address', '=', address).where('code', '=', code)
        .where('expires_at', '>', now).executeTakeFirst(),

    /** Logs an answer once per channel and provider event: false when that event was handled before (a replay). */
    insertOnce: async (db: Kysely<DB>, row: AnswerRow): Promise<boolean> =>
      (await db.insertInto('inbound_answers').values(row).onConflict((oc) => oc.columns(['channel', 'event_key']).doNothing())
        .returning('id').executeTakeFirst()) !== undefined,

    setOutcome: (db: Kysely<DB>, id: string, outcome: string) => db.updateTable('inbound_answers').set({ outcome }).where('id', '=', id).execute(),

    /** The answers to some notifications (one organization's), oldest first. */
    forNotifications: (db: Kysely<DB>, orgId: string, ids: string[]): Promise<AnswerRow[]> =>
      ids.length === 0 ? Promise.resolve([])
        : db.selectFrom('inbound_answers').selectAll().where('org_id', '=', orgId).where('notification_id', 'in', ids).orderBy('created_at').orderBy('id').execute(),
  };
}
export type AnswersRepo = ReturnType<typeof answersRepo>;
