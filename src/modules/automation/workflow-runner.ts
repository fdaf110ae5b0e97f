import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import { commitTogetherOnSqlite } from '../../db/group-commit.ts';
import type { DB } from '../../db/schema.ts';
import { fairShare, nextPriority } from '../../infra/queue/fairness-fns.ts';
import { backoffMs, type JobQueue } from '../../infra/queue/queue.ts';
import { actorFrom, type Actor } from '../../lib/actor.ts';
import type { ConditionSubject } from '../../lib/conditions.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { conditionSubject } from '../alerts/alerts-fns.ts';
import type { AlertRow, AlertsRepo } from '../alerts/alerts-repo.ts';
import type { AlertWriter } from '../alerts/alert-writer.ts';
import type { IncidentRow } from '../incidents/incidents-repo.ts';
import type { IncidentsService } from '../incidents/incidents-service.ts';
import type { ChannelTarget } from '../notifications/channels/channel.ts';
import { channelOf, type ChannelType } from '../notifications/channels/registry.ts';
import { recipients } from '../notifications/notifications-fns.ts';
import type { Delivery } from '../notifications/notifications-schemas.ts';
import { DELIVERY_RETRY, DeliveryDeferred, RetryableDeliveryError, type NotificationsService } from '../notifications/notifications-service.ts';
import type { EscalationsService, PageDelivery } from '../escalations/escalations-service.ts';
import type { SchedulesService } from '../schedules/schedules-service.ts';
import type { ScheduleUser } from '../schedules/schedules-repo.ts';
import { matches, namesField } from '../workflows/conditions-fns.ts';
import { readField, renderTemplate, type TemplateAlert } from '../workflows/workflows-fns.ts';
import { enabledFor, insertRun, readDefinition, updateRun, type WorkflowDefinition } from '../workflows/workflows-repo.ts';
import type { RunAction, Trigger, WorkflowAction } from '../workflows/workflows-schemas.ts';
import type { AlertEvent } from './event-relay.ts';
import type { FlapNotices } from './flap-notices.ts';

/**
 * A delivery as an earlier version queued it (a workflow's email or webhook action, or a page), before every
 * delivery went through the channel registry: such a job may still wait in the queue after an upgrade.
 */
type QueuedAction =
  | { type: 'email'; to?: string[]; toOnCall?: string | null; subject?: string }
  | { type: 'webhook'; url: string; secret?: string }
  | { type: 'page'; channel: ChannelType; target: ChannelTarget };

/** What a job of the `deliveries` queue carries. */
export interface DeliveryJob {
  notificationId: string;
  /** The channel and its target (secrets in clear); absent in jobs queued before it, which carry `action`. */
  delivery?: Delivery;
  action?: QueuedAction;
  event: string;
  /** A workflow email's own subject, placeholders rendered. */
  subject?: string;
  /** Absent in jobs queued before fair scheduling: such a job runs unscheduled by group. */
  orgId?: string;
  /** The job's fair priority, kept by its retries. */
  priority?: number;
}

/**
 * Who answered the alert of an `alert.acknowledged` / `alert.resolved` event, when it was its sender (an
 * integration, or a heartbeat): ingest does not look at incidents, so the incident follows here. A person's or
 * key's answer went through the alerts or incidents service, which moved the incident in the same transaction;
 * following it again could undo a later choice (an incident set back to triggered on purpose).
 */
function senderAnswer(row: AlertRow, type: string): Actor | null {
  const actor = type === 'alert.resolved' ? actorFrom(row.resolved_by_type, row.resolved_by_id)
    : type === 'alert.acknowledged' ? actorFrom(row.acknowledged_by_type, row.acknowledged_by_id) : null;
  return actor && (actor.type === 'integration' || actor.type === 'system') ? actor : null;
}

/** Deferred deliveries come back spread over this span after their host's cool-down, not all at once. */
const DEFER_JITTER_MS = 10_000;

/**
 * Runs an alert event's workflows: each matching workflow's actions in order, all in one transaction with
 * the record of its run. A run is keyed on (workflow, event) in the database, so a retried job never runs
 * a workflow twice for one event; deliveries are queued in the same transaction, keyed per alert, workflow
 * and action, so a page goes out at most once per action.
 */
export function workflowRunner(deps: {
  store: Store;
  alerts: AlertsRepo;
  /** Workflow actions change alerts through their one writer. */
  writer: Pick<AlertWriter, 'change'>;
  incidents: IncidentsService;
  notifications: Pick<NotificationsService, 'prepare' | 'deliver'>;
  schedules: Pick<SchedulesService, 'currentOnCall'>;
  escalations: Pick<EscalationsService, 'start'>;
  /** The notices of an alert that starts or stops flapping (made with this runner's `queueDelivery`). */
  flapNotices: () => FlapNotices;
  queue: JobQueue;
  clock: Clock;
  log: Logger;
}) {
  const { store, alerts, writer, incidents, notifications, schedules, escalations, queue, clock } = deps;
  const share = fairShare();
  // The runs under way share a commit on SQLite (each an fsync that stops the event loop): a run is safe to repeat
  // after a commit that failed, as workflow_runs_once keys it.
  const runs = commitTogetherOnSqlite<void>(store);

  /** Queues a delivery (a first attempt, or a retry in its own lane), scheduled fairly within its organization's share. */
  const sendDelivery = (db: Kysely<DB>, lane: 'deliveries' | 'delivery-retries', job: DeliveryJob, delayMs = 0) =>
    queue.send<DeliveryJob>(db, lane, job, DELIVERY_RETRY, { delayMs, ...(job.orgId !== undefined && { group: job.orgId }), ...(job.priority !== undefined && { priority: job.priority }) });

  /** A first attempt, scheduled fairly: by organization, then by channel and target within it. */
  const queueFirst = (db: Kysely<DB>, job: DeliveryJob & { orgId: string; delivery: Delivery }, delayMs = 0) => {
    const target = `${job.delivery.channel}|${channelOf(job.delivery.channel).describe(job.delivery.target)}`;
    return sendDelivery(db, 'deliveries', { ...job, priority: nextPriority(share, [job.orgId, `${job.orgId}|${target}`], clock.now()) }, delayMs);
  };

  /**
   * A workflow action's notification to one target, queued unless it exists already; its id, or null when it did.
   * After the workflow's create_incident it is the incident's, not the alert's: a storm of alerts joining one
   * incident pages each target once (the unique idempotency key decides), after the incident's group wait.
   */
  async function notify(db: Kysely<DB>, ctx: RunContext, index: number, delivery: Delivery, extra: { recipient?: string; subject?: string } = {}): Promise<string | null> {
    const n = await notifications.prepare(db, {
      orgId: ctx.row.org_id, alertId: ctx.row.id, incidentId: ctx.incident?.id ?? null, workflowId: ctx.workflow.id, actionIndex: index,
      channel: delivery.channel, target: channelOf(delivery.channel).describe(delivery.target), ...(extra.recipient !== undefined && { recipient: extra.recipient }),
      perIncident: ctx.grouped,
    });
    if (!n.created) return null;
    await queueFirst(db, { notificationId: n.id, delivery, event: ctx.event.type, orgId: ctx.row.org_id, ...(extra.subject !== undefined && { subject: extra.subject }) }, ctx.waitMs);
    return n.id;
  }

  /** What a queued job delivers to; a job queued before the registry carried its action, translated here. */
  async function deliveryOf(job: DeliveryJob): Promise<{ delivery: Delivery; subject?: string }> {
    if (job.delivery) return { delivery: job.delivery, ...(job.subject !== undefined && { subject: job.subject }) };
    const action = job.action as QueuedAction;
    if (action.type === 'page') return { delivery: { channel: action.channel, target: action.target } };
    if (action.type === 'webhook') return { delivery: { channel: 'webhook', target: { url: action.url, ...(action.secret !== undefined && { secret: action.secret }) } } };
    const onCall = action.toOnCall && job.orgId ? (await schedules.currentOnCall(job.orgId, action.toOnCall, clock.now()))?.email ?? null : null;
    return { delivery: { channel: 'email', target: { to: recipients(action.to, onCall).join(', ') } }, ...(action.subject !== undefined && { subject: action.subject }) };
  }

  const subjectOf = (a: AlertRow): TemplateAlert & ConditionSubject => conditionSubject(store, a);

  /** Who is on call in a schedule at the run's time, read once per run. */
  function onCallIn(db: Kysely<DB>, ctx: RunContext, scheduleId: string): Promise<ScheduleUser | null> {
    let user = ctx.onCall.get(scheduleId);
    if (!user) ctx.onCall.set(scheduleId, (user = schedules.currentOnCall(ctx.row.org_id, scheduleId, ctx.at, db)));
    return user;
  }

  /** One action; returns its outcome and, for create_incident, the incident it opened or joined. */
  async function act(db: Kysely<DB>, ctx: RunContext, action: WorkflowAction, index: number): Promise<RunAction> {
    const outcome = (status: RunAction['status'], detail: string | null, incidentId: string | null = null): RunAction => ({ index, type: action.type, status, detail, incidentId });
    const { alert, workflow, at } = ctx;
    if (ctx.quiet && PAGING.has(action.type)) return outcome('skipped', 'the alert is flapping: its changes do not page (docs/paging.md#flapping-alerts)');
    switch (action.type) {
      case 'create_incident': {
        const groupKey = action.groupBy.map((f) => `${f}=${readField(alert, f) ?? ''}`).join('|');
        const title = renderTemplate(action.title, { alert }) || alert.title;
        const r = await incidents.openOrJoin(db, { workflowId: workflow.id, groupKey, title, alert: {
          id: ctx.row.id, incidentId: ctx.row.incident_id, orgId: ctx.row.org_id, severity: alert.severity, clientId: alert.clientId,
          integrationId: alert.integrationId, fingerprint: alert.fingerprint, title: alert.title, labels: alert.labels,
        } }, at);
        ctx.incident = r.incident;
        ctx.grouped = true;
        // The group wait holds the first pages of an incident this run opens; a joined one's were queued (or sent) already.
        ctx.waitMs = r.opened ? (action.groupWaitSeconds ?? 0) * 1000 : 0;
        if (r.already) return outcome('skipped', `the alert is already in incident #${r.incident.number}`, r.incident.id);
        // Only an incident this run opened starts escalating here; one joined has its own escalation (or answer) already.
        const escalation = r.opened && action.escalationPolicyId
          ? await escalations.start(db, { incident: r.incident, policyId: action.escalationPolicyId, alertId: ctx.row.id, delayMs: ctx.waitMs }, at) : null;
        return outcome('done', `${r.opened ? 'opened' : 'joined'} incident #${r.incident.number}${escalation ? `; ${escalation.started ? 'escalating:' : 'not escalating:'} ${escalation.detail}` : ''}`, r.incident.id);
      }
      case 'assign': {
        if (!ctx.incident) return outcome('skipped', 'no incident to assign');
        let userId = action.userId;
        if (action.scheduleId) {
          const user = await onCallIn(db, ctx, action.scheduleId);
          if (!user) return outcome('skipped', `nobody is on call in schedule ${action.scheduleId}`);
          userId = user.id;
        }
        if (!userId) return outcome('skipped', 'no user to assign');
        const assigned = await incidents.assign(db, ctx.incident, userId, at, action.scheduleId ? { scheduleId: action.scheduleId } : {}, action.scheduleId !== undefined);
        if (!assigned) return outcome('skipped', `user ${userId} is not a member of the organization`);
        ctx.incident = assigned;
        return outcome('done', `assigned to ${userId}`);
      }
      case 'set_severity':
        await writer.change(db, ctx.row.org_id, ctx.row.id, { severity: action.severity }, at);
        alert.severity = action.severity;
        // The alert's incident (ctx.incident is always the alert's own) shows the highest severity of its alerts.
        if (ctx.incident) ctx.incident = await incidents.refreshSeverity(db, ctx.incident, at);
        return outcome('done', `severity ${action.severity}`);
      case 'add_labels': {
        const added = Object.fromEntries(Object.entries(action.labels).map(([k, v]) => [k, renderTemplate(v, { alert, incident: ctx.incident })]));
        alert.labels = Object.assign(Object.create(null) as Record<string, string>, alert.labels, added);
        await writer.change(db, ctx.row.org_id, ctx.row.id, { labels: JSON.stringify(alert.labels) }, at);
        return outcome('done', `labels ${Object.keys(added).join(', ')}`);
      }
      case 'suppress':
        if (alert.status !== 'firing') return outcome('skipped', `the alert is ${alert.status}`);
        await writer.change(db, ctx.row.org_id, ctx.row.id, { status: 'suppressed' }, at);
        alert.status = 'suppressed';
        return outcome('done', 'alert suppressed');
      case 'email': {
        let onCall: string | null = null;
        if (action.toOnCall) onCall = (await onCallIn(db, ctx, action.toOnCall))?.email ?? null;
        const to = recipients(action.to, onCall);
        if (to.length === 0) return outcome('skipped', action.toOnCall ? `nobody is on call in schedule ${action.toOnCall} and the action names no other recipient` : 'no recipient');
        const subject = renderTemplate(action.subject, { alert, incident: ctx.incident });
        // One notification per address: each is retried, and logged, on its own.
        const queued: string[] = [];
        for (const address of to) {
          const id = await notify(db, ctx, index, { channel: 'email', target: { to: address } }, { recipient: address, subject });
          if (id !== null) queued.push(id);
        }
        return queued.length === 0 ? outcome('skipped', 'already notified') : outcome('queued', queued.join(', '));
      }
      case 'webhook':
      case 'notify': {
        const delivery: Delivery = action.type === 'webhook' ? { channel: 'webhook', target: { url: action.url, secret: action.secret } } : { channel: action.channel, target: action.target };
        const id = await notify(db, ctx, index, delivery);
        return id === null ? outcome('skipped', 'already notified') : outcome('queued', id);
      }
      case 'escalate': {
        if (!ctx.incident) return outcome('skipped', 'no incident to escalate');
        const r = await escalations.start(db, { incident: ctx.incident, policyId: action.policyId, alertId: ctx.row.id, delayMs: ctx.waitMs }, at);
        return outcome(r.started ? 'done' : 'skipped', r.detail);
      }
    }
  }

  async function runWorkflow(db: Kysely<DB>, workflow: WorkflowDefinition, row: AlertRow, event: AlertEvent): Promise<void> {
    const at = clock.now();
    const alert = subjectOf(row);
    const matched = matches(workflow.conditions, alert);
    const runId = newId('run');
    const fresh = await insertRun(db, {
      id: runId, org_id: row.org_id, workflow_id: workflow.id, alert_id: row.id, event_id: event.eventId, trigger: event.type,
      matched: matched ? 1 : 0, actions: '[]', created_at: at, updated_at: at,
    });
    if (!fresh || !matched) return;
    const incident = row.incident_id ? await incidents.row(db, row.org_id, row.incident_id) : undefined;
    // A flapping alert pages only through a workflow written for it: one whose conditions name `flapping`.
    const quiet = row.flapping === 1 && !namesField(workflow.conditions, 'flapping');
    const ctx: RunContext = { row, alert, workflow, event, at, incident: incident ?? null, grouped: false, waitMs: 0, quiet, onCall: new Map() };
    const outcomes: RunAction[] = [];
    for (const [i, action] of workflow.actions.entries()) outcomes.push(await act(db, ctx, action, i));
    await updateRun(db, row.org_id, runId, outcomes, at);
  }

  return {
    /** Queues an escalation page's (or a notice's) first attempt in the same fair lanes as workflow deliveries. */
    queueDelivery: (db: Kysely<DB>, p: PageDelivery, event = 'escalation.step') =>
      queueFirst(db, { notificationId: p.notificationId, delivery: { channel: p.channel, target: p.target }, event, orgId: p.orgId }),

    /** The `alert-events` job: the incident follows its alert, then the event's workflows run. */
    async handleEvent(event: AlertEvent): Promise<void> {
      await runs(async (trx) => {
        let row: AlertRow | undefined = await alerts.get(trx, event.orgId, event.alertId);
        if (!row) return;
        if (event.type === 'alert.flapping' || event.type === 'alert.stable') {
          await deps.flapNotices().send(trx, row, event);
          return;
        }
        const sender = senderAnswer(row, event.type);
        if (sender && row.incident_id) await incidents.alertAnswered(trx, row.org_id, row.incident_id, sender, clock.now());
        const workflows = await enabledFor(trx, event.orgId, event.type as Trigger);
        for (const [i, w] of workflows.entries()) {
          // Workflows do not run for a suppressed alert (an earlier workflow may just have suppressed it).
          if (row.status === 'suppressed') break;
          await runWorkflow(trx, readDefinition(store, w), row, event);
          // The next workflow sees the alert as this one left it.
          if (i + 1 < workflows.length) row = (await alerts.get(trx, event.orgId, event.alertId)) as AlertRow;
        }
      });
      queue.nudge('deliveries');
    },

    /**
     * A `deliveries` or `delivery-retries` job: one attempt. A retryable failure queues the next attempt in the
     * retry lane after its backoff, and an attempt deferred by its host's breaker goes there for when the host
     * may be tried again; the job itself then completes. (Re-queued before completing: a crash in between
     * leaves two jobs, and the notification's claim lets only one of them attempt at a time.)
     */
    async handleDelivery(job: DeliveryJob): Promise<void> {
      try {
        const { delivery, subject } = await deliveryOf(job);
        await notifications.deliver(job.notificationId, delivery, { event: job.event, ...(subject !== undefined && { subject }) });
      } catch (err) {
        if (err instanceof DeliveryDeferred) {
          const delayMs = Math.max(0, err.retryAt - clock.now()) + (err.exact ? 0 : Math.floor(Math.random() * DEFER_JITTER_MS));
          await sendDelivery(store.db, 'delivery-retries', job, delayMs);
        } else if (err instanceof RetryableDeliveryError) {
          await sendDelivery(store.db, 'delivery-retries', job, backoffMs(DELIVERY_RETRY, Math.max(0, err.attempts - 1)));
        } else {
          throw err;
        }
      }
    },
  };
}
export type WorkflowRunner = ReturnType<typeof workflowRunner>;

interface RunContext {
  row: AlertRow;
  alert: TemplateAlert & ConditionSubject;
  workflow: WorkflowDefinition;
  event: AlertEvent;
  at: number;
  incident: IncidentRow | null;
  /** The run's create_incident grouped the alert: the actions after it page once per incident. */
  grouped: boolean;
  /** How long the first pages of the incident this run opened wait (its create_incident's group wait). */
  waitMs: number;
  /** The alert flaps and the workflow does not name `flapping`: its actions that page are skipped. */
  quiet: boolean;
  /** Who is on call in a schedule, looked up once per run (an email to the on-call and an assignment to them ask twice). */
  onCall: Map<string, Promise<ScheduleUser | null>>;
}

/** The actions that page someone (or open an incident that would): skipped for a flapping alert. */
const PAGING: ReadonlySet<WorkflowAction['type']> = new Set(['create_incident', 'email', 'webhook', 'notify', 'escalate']);
