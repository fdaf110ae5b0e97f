import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { inTransaction, type Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { AllowList } from '../../infra/outbound.ts';
import type { JobQueue, RetryPolicy } from '../../infra/queue/queue.ts';
import type { Actor } from '../../lib/actor.ts';
import { iso, type Clock } from '../../lib/clock.ts';
import { AppError, conflict, notFound } from '../../lib/errors.ts';
import { newId, orderedId } from '../../lib/ids.ts';
import { paginate, type CursorCodec, type Page } from '../../lib/pagination.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { IncidentRow, IncidentsRepo } from '../incidents/incidents-repo.ts';
import type { ContactStep, MemberContacts } from '../contacts/contacts-fns.ts';
import type { ChannelTarget } from '../notifications/channels/channel.ts';
import { channelOf, type ChannelType } from '../notifications/channels/registry.ts';
import { schemaProblems } from '../notifications/channels/target-fns.ts';
import type { NotificationsService } from '../notifications/notifications-service.ts';
import type { SchedulesService } from '../schedules/schedules-service.ts';
import { checkSteps, keepStepSecrets, LINK_TTL_MS, maskSteps, namesPolicy, nextStep, pageKey, signLink, stepTargets, type LinkAction, type PolicySnapshot } from './escalations-fns.ts';
import type { EscalationRow, EscalationsRepo, PolicyRow } from './escalations-repo.ts';
import { incidentPaging } from './incident-paging.ts';
import type { CreatePolicyBody, EscalationPolicy, Step, Target, UpdatePolicyBody } from './escalations-schemas.ts';

/** A job of the `escalations` queue: a step to fire, or a member's later contact step ("email after 3 minutes"). */
export type EscalationJob =
  | { kind: 'step'; escalationId: string; repeat: number; step: number }
  | { kind: 'contact'; escalationId: string; repeat: number; step: number; userId: string; contact: number; channel: ChannelType; target: ChannelTarget };

/** A delivery the escalation hands to the delivery queue (the runner's fair lanes). */
export interface PageDelivery {
  notificationId: string;
  orgId: string;
  channel: ChannelType;
  target: ChannelTarget;
}

/** A step's target resolved to who or what gets paged. */
type Planned =
  | { target: Extract<Target, { type: 'channel' }>; channel: ChannelType; channelTarget: ChannelTarget }
  | { target: Extract<Target, { type: 'user' | 'schedule' }>; userId: string | null; contacts: ContactStep[] };

const JOB_RETRY: RetryPolicy = { limit: 10, delaySeconds: 2 };
const SYSTEM: Actor = { type: 'system', id: null };

export function escalationsService(deps: {
  store: Store;
  repo: EscalationsRepo;
  incidents: IncidentsRepo;
  audit: AuditService;
  clock: Clock;
  cursors: CursorCodec;
  queue: JobQueue;
  schedules: Pick<SchedulesService, 'currentOnCall'>;
  members: MemberContacts;
  notifications: Pick<NotificationsService, 'prepare' | 'cancelPages'>;
  queueDelivery: (db: Kysely<DB>, delivery: PageDelivery) => Promise<void>;
  /** A "minute" of the policies' delays, in milliseconds: 60,000 except in tests (ESCALATION_MINUTE_MS). */
  minuteMs: number;
  secret: string;
  baseUrl: string;
  /** OUTBOUND_ALLOW: channel targets' URLs are checked against it when a policy is saved. */
  outboundAllow: AllowList;
  log: Logger;
}) {
  const { store, repo, incidents, audit, clock, cursors, queue, log } = deps;

  const toPolicy = (r: PolicyRow): EscalationPolicy => ({
    id: r.id, name: r.name, steps: maskSteps(store.readJson<Step[]>(r.steps)), repeat: Number(r.repeat), createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  });

  const refused = (details: Array<{ path: string; message: string }>) => new AppError('VALIDATION_ERROR', 'Escalation policy is invalid', details);

  /** Steps to store: a secret sent back masked keeps the stored one of the same channel target (400 when there is none). */
  function settled(steps: Step[], stored: Step[]): Step[] {
    const kept = keepStepSecrets(steps, stored);
    if (!kept.ok) throw refused(kept.errors);
    return kept.steps;
  }

  async function checkPolicy(db: Kysely<DB>, orgId: string, steps: Step[]): Promise<void> {
    const { errors, users, schedules } = checkSteps(steps, deps.outboundAllow);
    const knownUsers = await repo.userIds(db, orgId, [...users.keys()]);
    const knownSchedules = await repo.scheduleIds(db, orgId, [...schedules.keys()]);
    for (const [id, path] of users) if (!knownUsers.has(id)) errors.push({ path, message: 'is not a user of this organization' });
    for (const [id, path] of schedules) if (!knownSchedules.has(id)) errors.push({ path, message: 'is not a schedule of this organization' });
    if (errors.length > 0) throw refused(errors);
  }

  const note = (db: Kysely<DB>, e: Pick<EscalationRow, 'org_id' | 'incident_id'>, type: string, actor: Actor, data: Record<string, unknown>, at: number) =>
    incidents.addEvent(db, { id: orderedId('ine', at), org_id: e.org_id, incident_id: e.incident_id, type, actor_type: actor.type, actor_id: actor.id, data: JSON.stringify(data), created_at: at });

  const stepJob = (db: Kysely<DB>, e: Pick<EscalationRow, 'id' | 'org_id'>, repeat: number, step: number, delayMs: number) =>
    queue.send<EscalationJob>(db, 'escalations', { kind: 'step', escalationId: e.id, repeat, step }, JOB_RETRY, { delayMs, group: e.org_id });

  /** Inserts an active escalation with its first step queued now; null when the incident has one already. */
  async function begin(db: Kysely<DB>, p: { orgId: string; incident: IncidentRow; policyId: string; alertId: string; policy: PolicySnapshot; assigneeId: string | null }, actor: Actor, at: number, data: Record<string, unknown>, delayMs = 0): Promise<EscalationRow | null> {
    const row: EscalationRow = {
      id: newId('esc'), org_id: p.orgId, incident_id: p.incident.id, policy_id: p.policyId, alert_id: p.alertId, policy: JSON.stringify(p.policy),
      assignee_id: p.assigneeId, status: 'active', kind: 'policy', repeat: 0, step: 0, started_at: at, stopped_at: null, stop_reason: null,
    };
    if (!(await repo.insertEscalation(db, row))) return null;
    await note(db, row, 'escalation_started', actor, { escalationId: row.id, policyId: p.policyId, policyName: p.policy.name, ...data }, at);
    await stepJob(db, row, 0, 1, delayMs);
    return row;
  }

  /** One page: the notification (once per key) and its delivery. */
  async function page(db: Kysely<DB>, e: EscalationRow, step: number, channel: ChannelType, target: ChannelTarget, recipientId: string | null, key: string): Promise<string | null> {
    if (schemaProblems(channelOf(channel), target, '').length > 0) return null;
    const n = await deps.notifications.prepare(db, {
      source: 'escalation', escalationId: e.id, step, recipientId, key,
      orgId: e.org_id, alertId: e.alert_id, incidentId: e.incident_id, channel, target: channelOf(channel).describe(target),
    });
    if (n.created) await deps.queueDelivery(db, { notificationId: n.id, orgId: e.org_id, channel, target });
    return n.id;
  }

  /** Who a step pages, worked out before its transaction (a member's contact plan is read through its own module). */
  async function plan(e: EscalationRow, step: number, at: number): Promise<Planned[]> {
    const policy = store.readJson<PolicySnapshot>(e.policy);
    const out: Planned[] = [];
    for (const target of stepTargets(policy, step, e.assignee_id)) {
      if (target.type === 'channel') out.push({ target, channel: target.channel, channelTarget: target.target });
      else {
        const user = target.type === 'user' ? { id: target.id } : await deps.schedules.currentOnCall(e.org_id, target.id, at);
        out.push({ target, userId: user?.id ?? null, contacts: user ? await deps.members.planFor(e.org_id, user.id) : [] });
      }
    }
    return out;
  }

  /** Pages a member by their contact plan: the steps due now at once, the later ones as delayed jobs. */
  async function pageMember(db: Kysely<DB>, e: EscalationRow, repeat: number, step: number, userId: string, contacts: ContactStep[]): Promise<string[]> {
    const how: string[] = [];
    for (const [contact, c] of contacts.entries()) {
      if (c.afterMinutes > 0) {
        await queue.send<EscalationJob>(db, 'escalations', { kind: 'contact', escalationId: e.id, repeat, step, userId, contact, channel: c.channel, target: c.target }, JOB_RETRY, { delayMs: c.afterMinutes * deps.minuteMs, group: e.org_id });
        how.push(`${c.channel} after ${c.afterMinutes} min`);
      } else if (await page(db, e, step, c.channel, c.target, userId, pageKey(e.id, repeat, step, { userId, contact }))) {
        how.push(`${c.channel} ${channelOf(c.channel).describe(c.target)}`);
      }
    }
    return how;
  }

  /**
   * An escalation that may still page: active (or, for a member's later contact step, `done` after its last
   * step: that step fired, so its pages are still owed), its incident still triggered. Stops an active one
   * (saying why) when the incident is not.
   */
  async function live(db: Kysely<DB>, escalationId: string, at: number, opts: { afterLastStep?: boolean } = {}): Promise<EscalationRow | null> {
    const e = await repo.escalation(db, escalationId);
    // A responder request pages while it is not answered (see incidentAnswered), the incident acknowledged or not.
    if (e?.kind === 'responder') return e.status === 'responding' ? e : null;
    if (!e || !(e.status === 'active' || (opts.afterLastStep === true && e.status === 'done'))) return null;
    const incident = await incidents.get(db, e.org_id, e.incident_id);
    if (incident?.status === 'triggered') return e;
    const reason = incident ? `incident_${incident.status}` : 'incident_gone';
    if (await repo.stop(db, e.org_id, e.incident_id, reason, at)) await note(db, e, 'escalation_stopped', SYSTEM, { escalationId: e.id, reason }, at);
    await deps.notifications.cancelPages(db, e.org_id, { incidentId: e.incident_id }, incident ? `the incident was ${incident.status}` : 'the incident was deleted');
    return null;
  }

  /**
   * Fires a step: in one transaction, the escalation is checked still active and its incident still
   * triggered, the step is claimed (once ever), its pages are prepared and queued, and the next step is queued.
   */
  async function fireStep(escalationId: string, repeat: number, step: number): Promise<void> {
    const before = await repo.escalation(store.db, escalationId);
    if (!before || (before.status !== 'active' && before.status !== 'responding')) return;
    const at = clock.now();
    const planned = await plan(before, step, at);
    await store.db.transaction().execute(async (db) => {
      const e = await live(db, escalationId, at);
      if (!e || !(await repo.claimStep(db, e.id, repeat, step, at))) return;
      const policy = store.readJson<PolicySnapshot>(e.policy);
      const paged: Array<Record<string, unknown>> = [];
      for (const p of planned) {
        if ('channel' in p) {
          const id = await page(db, e, step, p.channel, p.channelTarget, null, pageKey(e.id, repeat, step, { channel: p.channel, target: p.channelTarget }));
          paged.push({ target: 'channel', channel: p.channel, via: id ? [`${p.channel} ${channelOf(p.channel).describe(p.channelTarget)}`] : [] });
        } else {
          const who = p.target.type === 'user' ? { target: 'user', userId: p.target.id } : { target: 'schedule', scheduleId: p.target.id, userId: p.userId };
          paged.push(p.userId === null ? { ...who, via: [], note: 'nobody on call' } : { ...who, via: await pageMember(db, e, repeat, step, p.userId, p.contacts) });
        }
      }
      const next = nextStep(policy, repeat, step);
      await repo.fired(db, e.id, repeat, step, next === null, at);
      const delayMinutes = policy.steps[step - 1]?.delayMinutes ?? 0;
      if (e.kind === 'responder') await note(db, e, 'responder_paged', SYSTEM, { escalationId: e.id, paged }, at);
      else await note(db, e, 'escalation_step', SYSTEM, { escalationId: e.id, round: repeat + 1, step, paged, ...(next ? { nextStepInMinutes: delayMinutes } : { last: true }) }, at);
      if (next) await stepJob(db, e, next.repeat, next.step, delayMinutes * deps.minuteMs);
    });
  }

  const working = incidentPaging({ store, repo, incidents, audit, clock, queue, begin, note, stepJob });

  return {
    ...working,

    /** The organization's saved targets of a channel in its policies, secrets in clear: what a masked secret of a test may stand for. */
    async channelTargets(orgId: string, channel: string): Promise<ChannelTarget[]> {
      return (await repo.allSteps(store.db, orgId)).flatMap((r) => store.readJson<Step[]>(r.steps).flatMap((s) => s.targets))
        .flatMap((t) => (t.type === 'channel' && t.channel === channel ? [t.target] : []));
    },

    async list(orgId: string, q: { limit?: number | undefined; cursor?: string | undefined }): Promise<Page<EscalationPolicy>> {
      const limit = q.limit ?? 25;
      return paginate(cursors, `${orgId}:escalation-policies`, { limit, cursor: q.cursor },
        (after) => repo.page(store.db, orgId, limit, after), () => repo.count(store.db, orgId), toPolicy);
    },

    async get(orgId: string, id: string): Promise<EscalationPolicy> {
      const row = await repo.policy(store.db, orgId, id);
      if (!row) throw notFound('Escalation policy');
      return toPolicy(row);
    },

    async create(orgId: string, actor: Actor, input: CreatePolicyBody, db: Kysely<DB> = store.db): Promise<EscalationPolicy> {
      const at = clock.now();
      const row: PolicyRow = { id: newId('esp'), org_id: orgId, name: input.name, steps: '', repeat: input.repeat ?? 0, created_at: at, updated_at: at };
      await inTransaction(db, async (trx) => {
        await checkPolicy(trx, orgId, input.steps);
        row.steps = JSON.stringify(settled(input.steps, []));
        await repo.insertPolicy(trx, row);
        await audit.record(trx, { orgId, action: 'escalation_policy.created', actor, target: { type: 'escalation_policy', id: row.id }, metadata: { name: row.name } });
      });
      return toPolicy(row);
    },

    async update(orgId: string, actor: Actor, id: string, input: UpdatePolicyBody, db: Kysely<DB> = store.db): Promise<EscalationPolicy> {
      const row = await inTransaction(db, async (trx) => {
        const current = await repo.policy(trx, orgId, id);
        if (!current) throw notFound('Escalation policy');
        if (input.steps) await checkPolicy(trx, orgId, input.steps);
        const steps = input.steps && settled(input.steps, store.readJson<Step[]>(current.steps));
        const updated = await repo.updatePolicy(trx, orgId, id, {
          ...(input.name !== undefined && { name: input.name }),
          ...(steps !== undefined && { steps: JSON.stringify(steps) }),
          ...(input.repeat !== undefined && { repeat: input.repeat }),
          updated_at: clock.now(),
        });
        await audit.record(trx, { orgId, action: 'escalation_policy.updated', actor, target: { type: 'escalation_policy', id }, metadata: { changed: Object.keys(input) } });
        return updated as PolicyRow;
      });
      return toPolicy(row);
    },

    /** Refused (409) while a workflow names the policy; escalations under way keep their copy of it. */
    async remove(orgId: string, actor: Actor, id: string): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        const row = await repo.policy(trx, orgId, id);
        if (!row) throw notFound('Escalation policy');
        const users = (await repo.workflowActions(trx, orgId)).filter((w) => namesPolicy(store.readJson<Array<Record<string, unknown>>>(w.actions), id));
        if (users.length > 0) throw conflict(`The policy is used by workflow${users.length > 1 ? 's' : ''} ${users.map((w) => `"${w.name}"`).join(', ')}: change ${users.length > 1 ? 'them' : 'it'} first`);
        await repo.deletePolicy(trx, orgId, id);
        await audit.record(trx, { orgId, action: 'escalation_policy.deleted', actor, target: { type: 'escalation_policy', id }, metadata: { name: row.name } });
      });
    },

    /**
     * Starts a policy for a triggered incident, in the caller's transaction (a workflow's run). Says why not
     * otherwise: no such policy, the incident is not triggered, or it is escalating already.
     */
    /** `delayMs`: the first step waits this long (a workflow's group wait), collecting alerts into the incident before it pages. */
    async start(db: Kysely<DB>, p: { incident: IncidentRow; policyId: string; alertId: string; delayMs?: number }, at: number): Promise<{ started: boolean; detail: string }> {
      const policy = await repo.policy(db, p.incident.org_id, p.policyId);
      if (!policy) return { started: false, detail: `escalation policy ${p.policyId} no longer exists` };
      if (p.incident.status !== 'triggered') return { started: false, detail: `the incident is ${p.incident.status}` };
      const snapshot: PolicySnapshot = { name: policy.name, steps: store.readJson<Step[]>(policy.steps), repeat: Number(policy.repeat) };
      const e = await begin(db, { orgId: p.incident.org_id, incident: p.incident, policyId: policy.id, alertId: p.alertId, policy: snapshot, assigneeId: null }, SYSTEM, at,
        p.delayMs ? { groupWaitSeconds: p.delayMs / 1000 } : {}, p.delayMs ?? 0);
      return e ? { started: true, detail: `escalation ${e.id} (${policy.name})` } : { started: false, detail: 'the incident is escalating already' };
    },

    /**
     * The incident was acknowledged or resolved: its escalation stops now, in the same transaction, and its pages
     * not yet sent (of any step, the last one's too) are cancelled.
     */
    async incidentAnswered(db: Kysely<DB>, incident: IncidentRow, status: string, actor: Actor, at: number): Promise<void> {
      await repo.stopResponders(db, incident.org_id, incident.id, status, at);
      const stopped = await repo.stop(db, incident.org_id, incident.id, status, at);
      if (stopped) await note(db, stopped, 'escalation_stopped', actor, { escalationId: stopped.id, reason: status }, at);
      await deps.notifications.cancelPages(db, incident.org_id, { incidentId: incident.id }, `the incident was ${status}`);
    },

    /**
     * The incident was reassigned while escalating: the escalation restarts from step 1 of the same policy
     * copy, and step 1 also pages the new assignee. Unassigning stops nothing.
     */
    async incidentReassigned(db: Kysely<DB>, incident: IncidentRow, userId: string | null, actor: Actor, at: number): Promise<void> {
      if (userId === null) return;
      const old = await repo.stop(db, incident.org_id, incident.id, 'reassigned', at);
      if (!old) return;
      await note(db, old, 'escalation_stopped', actor, { escalationId: old.id, reason: 'reassigned', assigneeId: userId }, at);
      await deps.notifications.cancelPages(db, old.org_id, { escalationId: old.id }, 'the incident was reassigned');
      await begin(db, { orgId: old.org_id, incident, policyId: old.policy_id, alertId: old.alert_id, policy: store.readJson<PolicySnapshot>(old.policy), assigneeId: userId }, actor, at, { restartOf: old.id, assigneeId: userId });
    },

    /** An `escalations` job: a step (claimed once, then paged) or a member's delayed contact step; skipped once the escalation stopped. */
    async handleJob(job: EscalationJob): Promise<void> {
      if (job.kind === 'step') await fireStep(job.escalationId, job.repeat, job.step);
      else {
        await store.db.transaction().execute(async (trx) => {
          const e = await live(trx, job.escalationId, clock.now(), { afterLastStep: true });
          if (e) await page(trx, e, job.step, job.channel, job.target, job.userId, pageKey(e.id, job.repeat, job.step, { userId: job.userId, contact: job.contact }));
        });
      }
      queue.nudge('deliveries');
      log.debug({ escalationId: job.escalationId, kind: job.kind }, 'escalation job');
    },

    /** The signed links of a page (none for pages that are not an escalation's). */
    pageLinks(row: { source: string; org_id: string; incident_id: string | null; recipient_id: string | null }): { acknowledgeUrl: string; resolveUrl: string } | null {
      if (row.source !== 'escalation' || row.incident_id === null) return null;
      const expiresAt = clock.now() + LINK_TTL_MS;
      const link = (action: LinkAction) => `${deps.baseUrl}/links/${signLink(deps.secret, { orgId: row.org_id, incidentId: row.incident_id as string, recipientId: row.recipient_id, action, expiresAt })}`;
      return { acknowledgeUrl: link('acknowledge'), resolveUrl: link('resolve') };
    },
  };
}
export type EscalationsService = ReturnType<typeof escalationsService>;
