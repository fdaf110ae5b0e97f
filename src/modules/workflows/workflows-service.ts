import type { Kysely, Updateable } from 'kysely';
import { inTransaction, type Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { AllowList } from '../../infra/outbound.ts';
import type { ChannelTarget } from '../notifications/channels/channel.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { AppError, notFound, type ErrorDetail } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AuditService } from '../audit/audit-service.ts';
import { checkActions, keepSecrets, publicAction, type Reference } from './actions-fns.ts';
import { checkConditions } from './conditions-fns.ts';
import { dryRun, sampleSubject } from './dry-run-fns.ts';
import { readDefinition, type WorkflowRow, type WorkflowRunRow, type WorkflowsRepo } from './workflows-repo.ts';
import type {
  Condition, CreateWorkflowBody, RunAction, SampleAlert, TestDraftBody, TestResult, TestWorkflowBody, Trigger, UpdateWorkflowBody, Workflow, WorkflowAction, WorkflowActionInput, WorkflowRun,
} from './workflows-schemas.ts';

const refused = (errors: ErrorDetail[]): AppError => new AppError('VALIDATION_ERROR', 'Workflow is invalid', errors);

type Query = { limit: number; cursor?: string | undefined };

/**
 * Workflows: definitions (trigger, conditions, ordered actions) checked as a whole when saved, a dry run
 * against a sample alert, and the log of runs the workflow runner records. Secrets (a webhook's, a notify
 * target's) are stored for the runner and never returned (`********`).
 */
/** `outboundAllow`: OUTBOUND_ALLOW, against which webhook actions' URLs are checked when saved or tested. */
export function workflowsService(deps: { store: Store; repo: WorkflowsRepo; audit: AuditService; clock: Clock; cursors: CursorCodec; outboundAllow: AllowList }) {
  const { store, repo, audit, clock, cursors, outboundAllow } = deps;

  const toWorkflow = (r: WorkflowRow): Workflow => {
    const d = readDefinition(store, r);
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      enabled: r.enabled === 1,
      trigger: d.trigger,
      conditions: d.conditions,
      actions: d.actions.map(publicAction),
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    };
  };

  const toRun = (r: WorkflowRunRow): WorkflowRun => ({
    id: r.id,
    alertId: r.alert_id,
    eventId: r.event_id,
    trigger: r.trigger as Trigger,
    matched: r.matched === 1,
    // Runs recorded before actions carried their incident read as having none.
    actions: store.readJson<RunAction[]>(r.actions).map((a) => ({ ...a, incidentId: a.incidentId ?? null })),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  });

  /** The checks that need no record: conditions and actions on their own (a masked secret is settled later). */
  function checkDefinition(conditions: unknown, actions: readonly WorkflowActionInput[] | undefined) {
    const errors: ErrorDetail[] = [];
    const c = conditions === undefined ? undefined : checkConditions(conditions);
    if (c && !c.ok) errors.push(...c.errors);
    const a = actions === undefined ? undefined : checkActions(actions, outboundAllow);
    if (a && !a.ok) errors.push(...a.errors);
    if (errors.length > 0) throw refused(errors);
    return { conditions: c?.ok ? c.conditions : undefined, actions: a?.ok ? a : undefined };
  }

  /** The users and schedules the actions name must be the organization's. */
  async function checkReferences(db: Kysely<DB>, orgId: string, refs: Reference[]): Promise<void> {
    const ids = (kind: Reference['kind']) => [...new Set(refs.filter((r) => r.kind === kind).map((r) => r.id))];
    const users = new Set((await repo.users(db, orgId, ids('user'))).map((u) => u.id));
    const schedules = new Set((await repo.schedules(db, orgId, ids('schedule'))).map((s) => s.id));
    const policies = new Set((await repo.escalationPolicies(db, orgId, ids('escalation_policy'))).map((p) => p.id));
    const known = { user: users, schedule: schedules, escalation_policy: policies };
    const errors = refs
      .filter((r) => !known[r.kind].has(r.id))
      .map((r) => ({ path: r.path, message: `is not ${r.kind === 'escalation_policy' ? 'an escalation policy' : `a ${r.kind}`} of this organization` }));
    if (errors.length > 0) throw refused(errors);
  }

  /**
   * Everything saving checks of a definition, the records it names included: creating a workflow and trying a
   * draft (`POST /workflows/test`) answer the same 400 for the same conditions and actions.
   */
  async function checkDraft(db: Kysely<DB>, orgId: string, conditions: unknown, actions: readonly WorkflowActionInput[]) {
    const checked = checkDefinition(conditions, actions);
    const { actions: valid, references } = checked.actions as { actions: WorkflowAction[]; references: Reference[] };
    await checkReferences(db, orgId, references);
    return { conditions: checked.conditions as Condition | null, actions: valid };
  }

  function settleSecrets(actions: WorkflowAction[], stored: WorkflowAction[]): WorkflowAction[] {
    const kept = keepSecrets(actions, stored);
    if (!kept.ok) throw refused(kept.errors);
    return kept.actions;
  }

  async function getRow(db: Kysely<DB>, orgId: string, id: string): Promise<WorkflowRow> {
    const row = await repo.get(db, orgId, id);
    if (!row) throw notFound('Workflow');
    return row;
  }

  async function setEnabled(orgId: string, actor: Actor, id: string, enabled: boolean): Promise<Workflow> {
    const row = await store.db.transaction().execute(async (trx) => {
      const current = await getRow(trx, orgId, id);
      // Enabling an enabled workflow (or disabling a disabled one) changes nothing and records nothing.
      if ((current.enabled === 1) === enabled) return current;
      const updated = await repo.update(trx, orgId, id, { enabled: enabled ? 1 : 0, updated_at: clock.now() });
      if (!updated) throw notFound('Workflow');
      await audit.record(trx, { orgId, action: enabled ? 'workflow.enabled' : 'workflow.disabled', actor, target: { type: 'workflow', id } });
      return updated;
    });
    return toWorkflow(row);
  }

  /** A definition tried on a sample, with the names of the users and schedules its actions name. */
  async function tryOn(orgId: string, d: { conditions: Condition | null; actions: WorkflowAction[] }, alert: SampleAlert): Promise<TestResult> {
    const userIds = d.actions.flatMap((a) => (a.type === 'assign' && a.userId !== null ? [a.userId] : []));
    const scheduleIds = d.actions.flatMap((a) => (a.type === 'assign' && a.scheduleId !== null ? [a.scheduleId]
      : a.type === 'email' && a.toOnCall !== null ? [a.toOnCall] : []));
    const [users, schedules] = await Promise.all([repo.users(store.db, orgId, userIds), repo.schedules(store.db, orgId, scheduleIds)]);
    return dryRun(d, sampleSubject(alert), {
      users: new Map(users.map((u) => [u.id, { name: u.name, email: u.email }])),
      schedules: new Map(schedules.map((s) => [s.id, s.name])),
    });
  }

  return {
    /** The organization's saved targets of a channel in its workflows, secrets in clear: what a masked secret of a test may stand for. */
    async channelTargets(orgId: string, channel: string): Promise<ChannelTarget[]> {
      return (await repo.all(store.db, orgId)).flatMap((r) => readDefinition(store, r).actions.flatMap((a) => {
        if (a.type === 'notify' && a.channel === channel) return [a.target];
        if (a.type === 'webhook' && channel === 'webhook') return [{ url: a.url, secret: a.secret }];
        return [];
      }));
    },

    async create(orgId: string, actor: Actor, input: CreateWorkflowBody, db: Kysely<DB> = store.db): Promise<Workflow> {
      const row = await inTransaction(db, async (trx) => {
        const { conditions, actions } = await checkDraft(trx, orgId, input.conditions ?? null, input.actions);
        const stored = settleSecrets(actions, []);
        const now = clock.now();
        const row: WorkflowRow = {
          id: newId('wf'),
          org_id: orgId,
          name: input.name,
          description: input.description ?? null,
          enabled: input.enabled === false ? 0 : 1,
          trigger: input.trigger,
          conditions: conditions === null ? null : JSON.stringify(conditions),
          actions: JSON.stringify(stored),
          created_at: now,
          updated_at: now,
        };
        await repo.insert(trx, row);
        await audit.record(trx, { orgId, action: 'workflow.created', actor, target: { type: 'workflow', id: row.id }, metadata: { name: row.name, trigger: row.trigger } });
        return row;
      });
      return toWorkflow(row);
    },

    async get(orgId: string, id: string): Promise<Workflow> {
      return toWorkflow(await getRow(store.db, orgId, id));
    },

    list(orgId: string, query: Query): Promise<Page<Workflow>> {
      return paginate(cursors, `${orgId}:workflows`, query,
        (after) => repo.page(store.db, orgId, query.limit, after), () => repo.count(store.db, orgId), toWorkflow);
    },

    /** Partial update. New actions are checked as a whole; a masked webhook secret keeps the stored one. */
    async update(orgId: string, actor: Actor, id: string, input: UpdateWorkflowBody, db: Kysely<DB> = store.db): Promise<Workflow> {
      const checked = checkDefinition(input.conditions, input.actions);
      const row = await inTransaction(db, async (trx) => {
        const current = await getRow(trx, orgId, id);
        const changes: Updateable<WorkflowRow> = {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.enabled !== undefined && { enabled: input.enabled ? 1 : 0 }),
          ...(input.trigger !== undefined && { trigger: input.trigger }),
          ...(checked.conditions !== undefined && { conditions: checked.conditions === null ? null : JSON.stringify(checked.conditions) }),
          updated_at: clock.now(),
        };
        if (checked.actions) {
          const actions = settleSecrets(checked.actions.actions, readDefinition(store, current).actions);
          await checkReferences(trx, orgId, checked.actions.references);
          changes.actions = JSON.stringify(actions);
        }
        const updated = await repo.update(trx, orgId, id, changes);
        if (!updated) throw notFound('Workflow');
        await audit.record(trx, { orgId, action: 'workflow.updated', actor, target: { type: 'workflow', id }, metadata: { changed: Object.keys(input) } });
        return updated;
      });
      return toWorkflow(row);
    },

    /** Deletes the workflow and its runs; incidents it opened stay. */
    async remove(orgId: string, actor: Actor, id: string): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        const current = await repo.get(trx, orgId, id);
        if (!current || !(await repo.remove(trx, orgId, id))) throw notFound('Workflow');
        await audit.record(trx, { orgId, action: 'workflow.deleted', actor, target: { type: 'workflow', id }, metadata: { name: current.name } });
      });
    },

    enable: (orgId: string, actor: Actor, id: string) => setEnabled(orgId, actor, id, true),
    disable: (orgId: string, actor: Actor, id: string) => setEnabled(orgId, actor, id, false),

    /** The dry run: nothing is written, sent or recorded. */
    async test(orgId: string, id: string, input: TestWorkflowBody): Promise<TestResult> {
      return tryOn(orgId, readDefinition(store, await getRow(store.db, orgId, id)), input.alert);
    },

    /** The dry run of a definition not saved yet (the editor's): checked as saving checks it (`checkDraft`), then tried. */
    async testDraft(orgId: string, input: TestDraftBody): Promise<TestResult> {
      return tryOn(orgId, await checkDraft(store.db, orgId, input.conditions ?? null, input.actions), input.alert);
    },

    async runs(orgId: string, id: string, query: Query): Promise<Page<WorkflowRun>> {
      await getRow(store.db, orgId, id);
      return paginate(cursors, `${orgId}:workflow-runs:${id}`, query,
        (after) => repo.runsPage(store.db, orgId, id, query.limit, after), () => repo.runsCount(store.db, orgId, id), toRun);
    },
  };
}
export type WorkflowsService = ReturnType<typeof workflowsService>;
