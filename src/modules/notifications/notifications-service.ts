import { toIncident } from '../incidents/incidents-fns.ts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Mailer } from '../../infra/mailer.ts';
import type { AllowList } from '../../infra/outbound.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { errorSummary } from '../../lib/logger.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AlertsService } from '../alerts/alerts-service.ts';
import { alertUrl, displayUrl, errorLine, idempotencyKey, recipients, toNotification, type Outcome } from './notifications-fns.ts';
import { hostOf, PermanentFailure, type ChannelDeps, type ChannelType, type PageMessage } from './channels/channel.ts';
import { emailPage, sendMail } from './channels/email.ts';
import { channelOf } from './channels/registry.ts';
import { sendWebhook } from './channels/webhook.ts';
import { admit, breakers, record, type BreakerPolicy } from './breaker-fns.ts';
import type { NotificationRow, NotificationsRepo } from './notifications-repo.ts';
import type { DeliveryAction, EmailActionInput, Notification, NotificationListQuery, WebhookActionInput } from './notifications-schemas.ts';

/**
 * A delivery attempt failed in a way worth retrying (network error, timeout, HTTP 5xx, SMTP 4xx or lost
 * connection). The attempt is recorded; the job queue should run the job again, with backoff.
 */
export class RetryableDeliveryError extends Error {
  override readonly name = 'RetryableDeliveryError';
  /** Attempts made so far (the next retry's backoff doubles with them). */
  readonly attempts: number;
  constructor(message: string, attempts: number) {
    super(message);
    this.attempts = attempts;
  }
}

/**
 * A delivery not attempted now because its target host's circuit breaker is open (breaker-fns.ts): nothing
 * was sent or counted; the job should run again at `retryAt`.
 */
export class DeliveryDeferred extends Error {
  override readonly name = 'DeliveryDeferred';
  readonly retryAt: number;
  constructor(retryAt: number) {
    super('The target host is failing; the attempt is deferred');
    this.retryAt = retryAt;
  }
}

/** The retry policy the job queue should use for delivery jobs: 8 attempts, 2 s doubling to 128 s between them (about 4 minutes in all). */
export const DELIVERY_RETRY = Object.freeze({ limit: 7, delaySeconds: 2 });
/** After this many attempts a retryable failure is final: the notification is recorded `failed`. */
export const MAX_ATTEMPTS = DELIVERY_RETRY.limit + 1;
/**
 * An attempt that recorded nothing for this long is presumed dead (its worker crashed) and may be taken
 * over: longer than any attempt can last (the timeouts below), shorter than the retry budget.
 */
export const ATTEMPT_LEASE_MS = 60_000;
const WEBHOOK_TIMEOUT_MS = 10_000;
/** Five unanswered attempts (timeouts, refused or reset connections) in a row open a host's breaker for 30 s, doubling after each failed probe up to 5 minutes. */
const BREAKER = { failures: 5, coolDownMs: 30_000, maxCoolDownMs: 300_000 } as const;
const SMTP_TIMEOUT_MS = 45_000;

/** The email address of a schedule's on-call user at `at`, or null when nobody is on call (or no such schedule). */
export type OnCallEmail = (orgId: string, scheduleId: string, at: number) => Promise<string | null>;

/** Where a notification comes from; its idempotency key follows from it (one notification per source, step and recipient). */
export type NotificationOrigin =
  | { source?: 'workflow'; workflowId: string; actionIndex: number }
  | { source: 'escalation'; escalationId: string; step: number; recipientId: string | null; key: string };

export type PrepareInput = {
  orgId: string;
  alertId: string;
  incidentId: string | null;
  channel: ChannelType;
  /** The webhook URL, the recipients known so far (the on-call is added at send time), or a page's described target. */
  target: string;
} & NotificationOrigin;

interface AttemptResult {
  outcome: Outcome;
  error: string | null;
  responseStatus: number | null;
  target?: string;
}

export interface NotificationsDeps {
  store: Store;
  repo: NotificationsRepo;
  alerts: AlertsService;
  clock: Clock;
  cursors: CursorCodec;
  log: Logger;
  /** Null when `SMTP_URL` is not set: email notifications then fail (permanently, saying so). */
  mailer: Mailer | null;
  smtpFrom: string;
  baseUrl: string;
  userAgent: string;
  outboundAllow: AllowList;
  onCallEmail: OnCallEmail | null;
  /** The signed acknowledge and resolve links an escalation page carries. */
  pageLinks?: (row: NotificationRow) => { acknowledgeUrl: string; resolveUrl: string } | null;
  webhookTimeoutMs?: number;
  /**
   * How long an attempt that recorded nothing holds its notification; the job queue's lease, so a job taken
   * over can send at once. Raised, if shorter, to the channel's longest attempt plus 5 s (email 50 s, webhook 15 s).
   */
  attemptLeaseMs?: number;
  /** Told of every attempt: its channel, outcome and duration in seconds (the metrics). */
  onAttempt?: (channel: string, outcome: AttemptResult['outcome'], seconds: number) => void;
}

/**
 * Notification delivery (email over SMTP, signed webhooks) and its log. The workflow runner calls
 * `prepare` inside the transaction that queues the delivery job, and `deliver` from that job.
 */
export function notificationsService(deps: NotificationsDeps) {
  const { store, repo, alerts, clock, cursors, log } = deps;
  const webhookTimeoutMs = deps.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS;
  // Per process: each worker process learns on its own that a host is down (after a few timeouts).
  const hosts = breakers();
  const breakerPolicy: BreakerPolicy = { ...BREAKER, probeMs: webhookTimeoutMs + 5_000 };
  /** Never shorter than the longest attempt of the channel (plus a margin): a live attempt is not taken over and repeated. */
  const leaseOf = (channel: string): number =>
    Math.max(deps.attemptLeaseMs ?? ATTEMPT_LEASE_MS, (channel === 'email' ? SMTP_TIMEOUT_MS : webhookTimeoutMs) + 5_000);

  const channelDeps: ChannelDeps = {
    mailer: deps.mailer, smtpFrom: deps.smtpFrom, baseUrl: deps.baseUrl, userAgent: deps.userAgent, outboundAllow: deps.outboundAllow,
    webhookTimeoutMs, smtpTimeoutMs: SMTP_TIMEOUT_MS,
  };

  /** The alert, its incident and the workflow as they are now. */
  async function context(row: NotificationRow, event: string | undefined): Promise<PageMessage> {
    let alert;
    try {
      const { payload: _payload, incidentNumber: _number, ...rest } = await alerts.get(row.org_id, row.alert_id);
      alert = rest;
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw new PermanentFailure('The alert no longer exists');
      throw err;
    }
    const incidentId = alert.incidentId ?? row.incident_id;
    const incident = incidentId ? await repo.incident(store.db, row.org_id, incidentId) : undefined;
    const workflow = row.workflow_id === null ? undefined : await repo.workflow(store.db, row.org_id, row.workflow_id);
    return {
      alert,
      incident: incident ? toIncident(incident) : null,
      workflow: row.workflow_id === null ? null : { id: row.workflow_id, name: workflow?.name ?? null },
      event: event ?? workflow?.trigger ?? 'alert.notification',
      alertUrl: alertUrl(deps.baseUrl, row.alert_id),
      ...deps.pageLinks?.(row),
      deliveryId: row.id,
      sentAt: clock.now(),
    };
  }

  async function emailAction(row: NotificationRow, action: EmailActionInput): Promise<AttemptResult> {
    if (!deps.mailer) throw new PermanentFailure('Email is not configured: set SMTP_URL');
    const page = await context(row, undefined);
    let onCall: string | null = null;
    if (action.toOnCall) {
      if (!deps.onCallEmail) throw new PermanentFailure('On-call lookup is not available');
      onCall = await deps.onCallEmail(row.org_id, action.toOnCall, clock.now());
    }
    const to = recipients(action.to, onCall);
    if (to.length === 0) {
      throw new PermanentFailure(action.toOnCall ? `Nobody is on call in schedule ${action.toOnCall} and the action names no other recipient` : 'The action names no recipient');
    }
    return { ...(await sendMail(channelDeps, { to, ...emailPage(page, deps.baseUrl, action.subject) })), target: to.join(', ') };
  }

  async function webhookAction(row: NotificationRow, action: WebhookActionInput, event: string | undefined): Promise<AttemptResult> {
    return sendWebhook(channelDeps, await context(row, event), action.url, action.secret);
  }

  async function sendAttempt(row: NotificationRow, action: DeliveryAction, event: string | undefined): Promise<AttemptResult> {
    switch (action.type) {
      case 'email': return emailAction(row, action);
      case 'webhook': return webhookAction(row, action, event);
      case 'page': return channelOf(action.channel).send(channelDeps, await context(row, event), action.target);
    }
  }

  /** The host an attempt reaches for (its circuit breaker's key), if it is an HTTP one. */
  const hostOfAction = (action: DeliveryAction): string | null =>
    action.type === 'webhook' ? hostOf(action.url) : action.type === 'page' ? channelOf(action.channel).host(action.target) : null;

    /** Records an attempt's outcome and returns the row as it now is. */
  async function settle(row: NotificationRow, attempt: number, r: AttemptResult): Promise<NotificationRow> {
    const now = clock.now();
    const exhausted = r.outcome === 'retry' && attempt >= MAX_ATTEMPTS;
    const status = r.outcome === 'sent' ? 'sent' : r.outcome === 'failed' || exhausted ? 'failed' : 'pending';
    const error = r.error === null ? null : errorLine(exhausted ? `Gave up after ${attempt} attempts: ${r.error}` : r.error);
    await repo.record(store.db, row.id, attempt, {
      status,
      last_error: r.outcome === 'retry' && error === null ? 'Failed' : error,
      response_status: r.responseStatus,
      sent_at: status === 'sent' ? now : null,
      ...(r.target !== undefined && { target: r.target }),
    }, now);
    const level = status === 'sent' ? 'info' : 'warn';
    log[level]({ notificationId: row.id, orgId: row.org_id, alertId: row.alert_id, channel: row.channel, attempt, status, responseStatus: r.responseStatus, error }, 'notification delivery');
    return (await repo.get(store.db, row.id)) ?? row;
  }

  return {
    /**
     * The notification of one alert, workflow and action: inserted `pending` in the caller's transaction
     * (`db`), unless it exists already (the unique idempotency key decides), in which case its id is
     * returned with `created: false`. Queue the delivery job only when `created`.
     */
    async prepare(db: Kysely<DB>, input: PrepareInput): Promise<{ id: string; created: boolean }> {
      const key = input.source === 'escalation' ? input.key : idempotencyKey(input.alertId, input.workflowId, input.actionIndex);
      const now = clock.now();
      const id = newId('ntf');
      const created = await repo.insertIfAbsent(db, {
        id,
        org_id: input.orgId,
        alert_id: input.alertId,
        incident_id: input.incidentId,
        workflow_id: input.source === 'escalation' ? null : input.workflowId,
        action_index: input.source === 'escalation' ? null : input.actionIndex,
        source: input.source ?? 'workflow',
        escalation_id: input.source === 'escalation' ? input.escalationId : null,
        step: input.source === 'escalation' ? input.step : null,
        recipient_id: input.source === 'escalation' ? input.recipientId : null,
        channel: input.channel,
        target: input.channel === 'webhook' ? displayUrl(input.target) : input.target,
        status: 'pending',
        attempts: 0,
        last_error: null,
        response_status: null,
        created_at: now,
        updated_at: now,
        sent_at: null,
        idempotency_key: key,
      });
      if (created) return { id, created };
      const existing = await repo.byKey(db, key);
      if (!existing) throw new Error(`Notification ${key} neither inserted nor found`);
      return { id: existing.id, created: false };
    },

    /**
     * One delivery attempt of a prepared notification, with `action` the workflow action it belongs to
     * (`event` defaults to the workflow's trigger). Already `sent` or `failed`: returns it, sending nothing.
     * Otherwise sends a message built from the alert (and incident) as they are now and records the
     * outcome. A retryable failure is recorded and thrown as RetryableDeliveryError (run the job again,
     * with backoff; after MAX_ATTEMPTS it is recorded `failed` instead); a permanent one (webhook 4xx or
     * 3xx, refused URL, no recipient, SMTP 5xx) is recorded `failed` and returned.
     */
    async deliver(notificationId: string, action: DeliveryAction, opts: { event?: string } = {}): Promise<Notification> {
      const row = await repo.get(store.db, notificationId);
      if (!row) throw new Error(`Notification ${notificationId} not found`);
      if (row.status !== 'pending') return toNotification(row);
      const now = clock.now();
      const host = hostOfAction(action);
      if (host !== null) {
        const admission = admit(hosts, breakerPolicy, host, now);
        if (!admission.ok) throw new DeliveryDeferred(admission.retryAt);
      }
      const claimed = await repo.claim(store.db, row.id, row.attempts, now, now - leaseOf(row.channel));
      if (!claimed) {
        const current = await repo.get(store.db, row.id);
        if (current && current.status !== 'pending') return toNotification(current);
        throw new RetryableDeliveryError('Another attempt of this notification is in progress', row.attempts);
      }
      const attempt = claimed.attempts;
      let result: AttemptResult;
      const started = performance.now();
      try {
        const channel = action.type === 'page' ? action.channel : action.type;
        if (channel !== claimed.channel) throw new PermanentFailure(`A ${channel} delivery cannot deliver a ${claimed.channel} notification`);
        result = await sendAttempt(claimed, action, opts.event);
        // Only attempts that reached for the host count (a refused URL or a missing alert says nothing about it),
        // and only going unanswered counts against it: a quick 5xx costs a worker little, a timeout costs it seconds.
        if (host !== null) record(hosts, breakerPolicy, host, result.outcome !== 'retry' || result.responseStatus !== null, clock.now());
      } catch (err) {
        result = err instanceof PermanentFailure
          ? { outcome: 'failed', error: err.message, responseStatus: null }
          : { outcome: 'retry', error: `Internal error: ${errorSummary(err).message ?? 'unknown'}`, responseStatus: null };
      }
      deps.onAttempt?.(claimed.channel, result.outcome, (performance.now() - started) / 1000);
      const settled = await settle(claimed, attempt, result);
      if (settled.status === 'pending') throw new RetryableDeliveryError(settled.last_error ?? 'Delivery failed', attempt);
      return toNotification(settled);
    },

    /**
     * Escalation pages no longer due (their incident answered, or their escalation restarted for a new
     * assignee): those not yet sent are cancelled in the caller's transaction, so their delivery jobs send nothing.
     */
    cancelPages: (db: Kysely<DB>, orgId: string, scope: { incidentId: string } | { escalationId: string }, why: string): Promise<number> =>
      repo.cancelPages(db, orgId, scope, `Not sent: ${why} before it left`, clock.now()),

    /** `GET /alerts/{id}/notifications`: the alert's delivery log, newest first; 404 for another organization's alert. */
    async listForAlert(orgId: string, alertId: string, query: NotificationListQuery): Promise<Page<Notification>> {
      if (!(await repo.alertExists(store.db, orgId, alertId))) throw notFound('Alert');
      const limit = query.limit ?? 25;
      return paginate(cursors, `${orgId}:notifications:${alertId}`, { limit, cursor: query.cursor },
        (after) => repo.page(store.db, orgId, alertId, limit, after), () => repo.count(store.db, orgId, alertId), toNotification);
    },
  };
}
export type NotificationsService = ReturnType<typeof notificationsService>;
