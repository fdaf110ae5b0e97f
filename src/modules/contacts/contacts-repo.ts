import type { Kysely, Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type ContactMethodRow = DB['contact_methods'];
export type NotificationRuleRow = DB['notification_rules'];

/** Every query is one member's: organization first, then the member. */
export function contactsRepo() {
  const methods = (db: Kysely<DB>, orgId: string, userId: string) =>
    db.selectFrom('contact_methods').where('org_id', '=', orgId).where('user_id', '=', userId);
  return {
    /**
     * Serializes one member's changes to their methods and rules: with `lock` (PostgreSQL) their user row
     * stays locked until the transaction ends; SQLite transactions are serial anyway. So the cap and the
     * rules' check see what a concurrent change left. The member's account address; nothing when there is no such member.
     */
    member: (db: Kysely<DB>, orgId: string, userId: string, lock: boolean) => {
      const q = db.selectFrom('users').select('email').where('org_id', '=', orgId).where('id', '=', userId);
      return (lock ? q.forUpdate() : q).executeTakeFirst();
    },
    list: (db: Kysely<DB>, orgId: string, userId: string) =>
      methods(db, orgId, userId).selectAll().orderBy('created_at').orderBy('id').execute(),
    count: async (db: Kysely<DB>, orgId: string, userId: string) =>
      Number((await methods(db, orgId, userId).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
    get: (db: Kysely<DB>, orgId: string, userId: string, id: string) =>
      methods(db, orgId, userId).selectAll().where('id', '=', id).executeTakeFirst(),
    insert: (db: Kysely<DB>, row: ContactMethodRow) => db.insertInto('contact_methods').values(row).execute(),
    update: (db: Kysely<DB>, orgId: string, userId: string, id: string, changes: Updateable<ContactMethodRow>) =>
      db.updateTable('contact_methods').set(changes)
        .where('org_id', '=', orgId).where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst(),
    /** Deletes a method; its rules go with it (foreign key, ON DELETE CASCADE). */
    remove: (db: Kysely<DB>, orgId: string, userId: string, id: string) =>
      db.deleteFrom('contact_methods')
        .where('org_id', '=', orgId).where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst(),
    /** The member with this account address (stored lower-case). */
    byEmail: (db: Kysely<DB>, orgId: string, email: string) =>
      db.selectFrom('users').select('id').where('org_id', '=', orgId).where('email', '=', email.trim().toLowerCase()).executeTakeFirst(),

    /** A one-time code to link a chat account, kept as its hash. */
    addLink: (db: Kysely<DB>, row: DB['contact_links']) => db.insertInto('contact_links').values(row).execute(),
    /** Uses a live code once (deleted as it is read): the member who asked for it, or nothing. */
    takeLink: (db: Kysely<DB>, orgId: string, channel: string, codeHash: string, now: number) =>
      db.deleteFrom('contact_links').where('code_hash', '=', codeHash).where('org_id', '=', orgId).where('channel', '=', channel)
        .where('expires_at', '>', now).returning('user_id').executeTakeFirst(),
    /** Who a linked chat account is, replaced when it is linked again. */
    setIdentity: (db: Kysely<DB>, row: DB['channel_identities']) =>
      db.insertInto('channel_identities').values(row)
        .onConflict((oc) => oc.columns(['org_id', 'channel', 'external_id']).doUpdateSet({ user_id: row.user_id, created_at: row.created_at })).execute(),
    identity: (db: Kysely<DB>, orgId: string, channel: string, externalId: string) =>
      db.selectFrom('channel_identities').select('user_id').where('org_id', '=', orgId).where('channel', '=', channel).where('external_id', '=', externalId).executeTakeFirst(),

    rules: (db: Kysely<DB>, orgId: string, userId: string) =>
      db.selectFrom('notification_rules').selectAll().where('org_id', '=', orgId).where('user_id', '=', userId).orderBy('position').execute(),
    replaceRules: async (db: Kysely<DB>, orgId: string, userId: string, rows: NotificationRuleRow[]) => {
      await db.deleteFrom('notification_rules').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
      if (rows.length > 0) await db.insertInto('notification_rules').values(rows).execute();
    },
  };
}
export type ContactsRepo = ReturnType<typeof contactsRepo>;
