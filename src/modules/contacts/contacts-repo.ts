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
    rules: (db: Kysely<DB>, orgId: string, userId: string) =>
      db.selectFrom('notification_rules').selectAll().where('org_id', '=', orgId).where('user_id', '=', userId).orderBy('position').execute(),
    replaceRules: async (db: Kysely<DB>, orgId: string, userId: string, rows: NotificationRuleRow[]) => {
      await db.deleteFrom('notification_rules').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
      if (rows.length > 0) await db.insertInto('notification_rules').values(rows).execute();
    },
  };
}
export type ContactsRepo = ReturnType<typeof contactsRepo>;
