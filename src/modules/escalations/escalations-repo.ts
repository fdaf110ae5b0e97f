import { sql, type Kysely, type Updateable } from 'kysely';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { DB } from '../../db/schema.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type PolicyRow = DB['escalation_policies'];
export type EscalationRow = DB['escalations'];

export function escalationsRepo() {
  const policies = (db: Kysely<DB>, orgId: string) => db.selectFrom('escalation_policies').where('org_id', '=', orgId);
  return {
    insertPolicy: (db: Kysely<DB>, row: PolicyRow) => db.insertInto('escalation_policies').values(row).execute(),
    policy: (db: Kysely<DB>, orgId: string, id: string) => policies(db, orgId).selectAll().where('id', '=', id).executeTakeFirst(),
    page: (db: Kysely<DB>, orgId: string, limit: number, after: Keyset | null) => keysetPage(policies(db, orgId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string) => countRows(policies(db, orgId)),
    updatePolicy: (db: Kysely<DB>, orgId: string, id: string, changes: Updateable<PolicyRow>) =>
      db.updateTable('escalation_policies').set(changes).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst(),
    deletePolicy: async (db: Kysely<DB>, orgId: string, id: string): Promise<boolean> =>
      Number((await db.deleteFrom('escalation_policies').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0,
    userIds: async (db: Kysely<DB>, orgId: string, ids: string[]): Promise<Set<string>> =>
      new Set(ids.length === 0 ? [] : (await db.selectFrom('users').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute()).map((r) => r.id)),
    scheduleIds: async (db: Kysely<DB>, orgId: string, ids: string[]): Promise<Set<string>> =>
      new Set(ids.length === 0 ? [] : (await db.selectFrom('schedules').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute()).map((r) => r.id)),
    /** The organization's workflows with their actions (to find those that name a policy). */
    /** Every policy's steps of the organization. */
    allSteps: (db: Kysely<DB>, orgId: string) => policies(db, orgId).select('steps').execute(),
    workflowActions: (db: Kysely<DB>, orgId: string) => db.selectFrom('workflows').select(['id', 'name', 'actions']).where('org_id', '=', orgId).execute(),

    /**
     * Starts one; false when the incident has an active escalation already (the partial unique index decides;
     * its predicate is written as a literal, as SQLite matches the index by the expression's text).
     */
    insertEscalation: async (db: Kysely<DB>, row: EscalationRow): Promise<boolean> =>
      (await db.insertInto('escalations').values(row)
        .onConflict((oc) => oc.column('incident_id').where('status', '=', sql.lit('active')).doNothing())
        .returning('id').executeTakeFirst()) !== undefined,
    escalation: (db: Kysely<DB>, id: string) => db.selectFrom('escalations').selectAll().where('id', '=', id).executeTakeFirst(),
    /** The incident's escalation under way, if any. */
    active: (db: Kysely<DB>, orgId: string, incidentId: string) =>
      db.selectFrom('escalations').selectAll().where('org_id', '=', orgId).where('incident_id', '=', incidentId).where('status', '=', 'active').executeTakeFirst(),
    /** The incident's newest escalation by a policy (not a responder request), whatever its state. */
    latestPolicyRun: (db: Kysely<DB>, orgId: string, incidentId: string) =>
      db.selectFrom('escalations').selectAll().where('org_id', '=', orgId).where('incident_id', '=', incidentId).where('kind', '=', 'policy')
        .orderBy('started_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst(),
    /** A responder request: never `active`, so it stands beside the incident's escalation. */
    insertResponder: (db: Kysely<DB>, row: EscalationRow) => db.insertInto('escalations').values(row).execute(),
    /** Ends the incident's responder requests still paging (their later contact steps are then skipped). */
    stopResponders: (db: Kysely<DB>, orgId: string, incidentId: string, reason: string, at: number) =>
      db.updateTable('escalations').set({ status: 'stopped', stopped_at: at, stop_reason: reason })
        .where('org_id', '=', orgId).where('incident_id', '=', incidentId).where('status', '=', 'responding').returning('id').execute(),
    /** Stops the incident's active escalation, if any: a conditional update, so a step job that has not claimed yet finds it stopped. */
    stop: (db: Kysely<DB>, orgId: string, incidentId: string, reason: string, at: number) =>
      db.updateTable('escalations').set({ status: 'stopped', stopped_at: at, stop_reason: reason })
        .where('org_id', '=', orgId).where('incident_id', '=', incidentId).where('status', '=', 'active').returningAll().executeTakeFirst(),
    /** The claim that makes a step fire once: true for the one caller that inserted it. */
    claimStep: async (db: Kysely<DB>, escalationId: string, repeat: number, step: number, at: number): Promise<boolean> =>
      (await db.insertInto('escalation_steps').values({ escalation_id: escalationId, repeat, step, fired_at: at })
        .onConflict((oc) => oc.columns(['escalation_id', 'repeat', 'step']).doNothing())
        .returning('step').executeTakeFirst()) !== undefined,
    /** Records the step fired and, when it was the last, that the escalation is done. */
    fired: (db: Kysely<DB>, id: string, repeat: number, step: number, done: boolean, at: number) =>
      db.updateTable('escalations').set({ repeat, step, ...(done && { status: 'done', stopped_at: at, stop_reason: 'done' }) })
        .where('id', '=', id).where('status', '=', 'active').execute(),
    /** Records an acknowledge link's use; false when it was used already. */
    useLink: async (db: Kysely<DB>, row: DB['page_link_uses']): Promise<boolean> =>
      (await db.insertInto('page_link_uses').values(row).onConflict((oc) => oc.column('token_hash').doNothing()).returning('token_hash').executeTakeFirst()) !== undefined,
    linkUsed: async (db: Kysely<DB>, tokenHash: string): Promise<boolean> =>
      (await db.selectFrom('page_link_uses').select('token_hash').where('token_hash', '=', tokenHash).executeTakeFirst()) !== undefined,
  };
}
export type EscalationsRepo = ReturnType<typeof escalationsRepo>;
