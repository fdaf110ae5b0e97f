import type { Kysely, Updateable } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';
import type { Condition, RunAction, Trigger, WorkflowAction } from './workflows-schemas.ts';

export type WorkflowRow = DB['workflows'];
export type WorkflowRunRow = DB['workflow_runs'];

/** A stored workflow as the runner needs it: conditions and actions parsed, webhook secrets in clear. */
export interface WorkflowDefinition {
  id: string;
  orgId: string;
  name: string;
  trigger: Trigger;
  conditions: Condition | null;
  actions: WorkflowAction[];
}

/** Parses a row's JSON columns (text on SQLite, jsonb on PostgreSQL). */
export const readDefinition = (store: Pick<Store, 'readJson'>, r: WorkflowRow): WorkflowDefinition => ({
  id: r.id,
  orgId: r.org_id,
  name: r.name,
  trigger: r.trigger as Trigger,
  conditions: r.conditions === null ? null : store.readJson<Condition | null>(r.conditions),
  actions: store.readJson<WorkflowAction[]>(r.actions),
});

/**
 * The organization's enabled workflows of a trigger, in the order they run: oldest first (created_at, id).
 * For the workflow runner; `readDefinition` parses each row.
 */
export const enabledFor = (db: Kysely<DB>, orgId: string, trigger: Trigger): Promise<WorkflowRow[]> =>
  db.selectFrom('workflows').selectAll()
    .where('org_id', '=', orgId).where('trigger', '=', trigger).where('enabled', '=', 1)
    .orderBy('created_at').orderBy('id')
    .execute();

/**
 * Records a run (`actions`: `JSON.stringify(RunAction[])`). One run per workflow and event: when the
 * (workflow_id, event_id) pair already has one (a retried job), nothing is written and false is returned.
 */
export async function insertRun(db: Kysely<DB>, row: WorkflowRunRow): Promise<boolean> {
  const r = await db.insertInto('workflow_runs').values(row)
    .onConflict((oc) => oc.columns(['workflow_id', 'event_id']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** The run of a workflow for an event, if recorded (to resume a retried job). */
export const runByEvent = (db: Kysely<DB>, orgId: string, workflowId: string, eventId: string): Promise<WorkflowRunRow | undefined> =>
  db.selectFrom('workflow_runs').selectAll()
    .where('org_id', '=', orgId).where('workflow_id', '=', workflowId).where('event_id', '=', eventId)
    .executeTakeFirst();

/** Replaces a run's action outcomes; false when there is no such run in the organization. */
export async function updateRun(db: Kysely<DB>, orgId: string, id: string, actions: RunAction[], at: number): Promise<boolean> {
  const r = await db.updateTable('workflow_runs').set({ actions: JSON.stringify(actions), updated_at: at })
    .where('org_id', '=', orgId).where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export function workflowsRepo() {
  const scoped = (db: Kysely<DB>, orgId: string) => db.selectFrom('workflows').where('org_id', '=', orgId);
  const runsOf = (db: Kysely<DB>, orgId: string, workflowId: string) =>
    db.selectFrom('workflow_runs').where('workflow_id', '=', workflowId).where('org_id', '=', orgId);

  return {
    insert: (db: Kysely<DB>, row: WorkflowRow) => db.insertInto('workflows').values(row).execute(),
    get: (db: Kysely<DB>, orgId: string, id: string) => scoped(db, orgId).selectAll().where('id', '=', id).executeTakeFirst(),
    page: (db: Kysely<DB>, orgId: string, limit: number, after: Keyset | null) =>
      keysetPage(scoped(db, orgId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string) => countRows(scoped(db, orgId)),
    update: (db: Kysely<DB>, orgId: string, id: string, changes: Updateable<WorkflowRow>) =>
      db.updateTable('workflows').set(changes).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst(),
    /** Deletes the workflow and its runs (which no route could reach any more). */
    remove: async (db: Kysely<DB>, orgId: string, id: string): Promise<boolean> => {
      const r = await db.deleteFrom('workflows').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      if (Number(r.numDeletedRows) !== 1) return false;
      await db.deleteFrom('workflow_runs').where('org_id', '=', orgId).where('workflow_id', '=', id).execute();
      return true;
    },

    /** Every workflow's definition of the organization (its notify targets, for a test of a saved one). */
    all: (db: Kysely<DB>, orgId: string) => scoped(db, orgId).selectAll().execute(),

    runsPage: (db: Kysely<DB>, orgId: string, workflowId: string, limit: number, after: Keyset | null) =>
      keysetPage(runsOf(db, orgId, workflowId).selectAll(), limit, after).execute(),
    runsCount: (db: Kysely<DB>, orgId: string, workflowId: string) => countRows(runsOf(db, orgId, workflowId)),
    enabledFor,
    insertRun,
    updateRun,
    runByEvent,

    /** The organization's users among `ids`, with what the dry run shows of them. */
    users: (db: Kysely<DB>, orgId: string, ids: string[]) =>
      ids.length === 0 ? Promise.resolve([]) : db.selectFrom('users').select(['id', 'name', 'email']).where('org_id', '=', orgId).where('id', 'in', ids).execute(),
    /** The organization's schedules among `ids` (a plain read of the schedules table). */
    schedules: (db: Kysely<DB>, orgId: string, ids: string[]) =>
      ids.length === 0 ? Promise.resolve([]) : db.selectFrom('schedules').select(['id', 'name']).where('org_id', '=', orgId).where('id', 'in', ids).execute(),
    escalationPolicies: (db: Kysely<DB>, orgId: string, ids: string[]) =>
      ids.length === 0 ? Promise.resolve([]) : db.selectFrom('escalation_policies').select(['id', 'name']).where('org_id', '=', orgId).where('id', 'in', ids).execute(),
  };
}
export type WorkflowsRepo = ReturnType<typeof workflowsRepo>;
