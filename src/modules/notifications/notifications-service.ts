import { toIncident } from '../incidents/incidents-fns.ts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import { commitTogether } from '../../db/group-commit.ts';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { errorSummary } from '../../lib/logger.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AnalyticsService, PageSent } from '../analytics/analytics-service.ts';
import type { AlertsService } from '../alerts/alerts-service.ts';
import { alertUrl, incidentKey, errorLine, idempotencyKey, testNotice, toNotification, type Outcome } from './notifications-fns.ts';
import { isNotice, PermanentFailure, type Channel, type ChannelDeps, type ChannelTarget, type Message, type OrgSetup } from './channels/channel.ts';
import type { AnswersService } from './answers-service.ts';
import type { SettingsService } from './settings-service.ts';
import type { AnswerRow, AnswersRepo } from './answers-repo.ts';
import { CHANNEL_TYPES, CHANNELS, channelOf, channelsFor, isChannelType, type ChannelType } from './channels/registry.ts';
import { catalogueFields, keepSecrets, targetProblems, targetShownTo } from './channels/target-fns.ts';
import { admit, begin, breakers, record, type Admission, type BreakerPolicy } from './breaker-fns.ts';
import { forIncident, type NotificationRow, type NotificationsRepo } from './notifications-repo.ts';
import type { ChannelInfo, Delivery, Notification, NotificationListQuery } from './notifications-schemas.ts';

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
 * A delivery not attempted now: its target host's circuit breaker is open (breaker-fns.ts), or its channel's
 * pace gives it a later slot. Nothing was sent or counted; the job should run again at `retryAt`.
 */
export class DeliveryDeferred extends Error {
  override readonly name = 'DeliveryDeferred';
  readonly retryAt: number;
  /** At `retryAt` itself (a paced send's slot), not spread out after it (a host's breaker). */
  readonly exact: boolean;
  constructor(retryAt: number, opts: { exact?: boolean } = {}) {
    super(opts.exact ? 'Waiting for its send slot' : 'The target host is failing; the attempt is deferred');
    this.retryAt = retryAt;
    this.exact = opts.exact === true;
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
/** Five unanswered attempts (timeouts, refused or reset connections) in a row open a host's breaker for 30 s, doubling after each failed probe up to 5 minutes. */
const BREAKER = { failures: 5, coolDownMs: 30_000, maxCoolDownMs: 300_000 } as const;
/** How long an SMTP delivery may take before it counts as failed (and is retried). */
export const SMTP_TIMEOUT_MS = 45_000;

/** Where a notification comes from; its idempotency key follows from it (one notification per source, step and recipient). */
export type NotificationOrigin =
  | {
    source?: 'workflow'; workflowId: string; actionIndex: number; /** One of several recipients of the action (an email's addresses). */ recipient?: string;
    /** Once per incident, not per alert: the action comes after the workflow's create_incident (docs/paging.md, "One page per storm"). */
    perIncident?: boolean;
  }
  | { source: 'escalation'; escalationId: string; step: number; recipientId: string | null; key: string };

export type PrepareInput = {
  orgId: string;
  alertId: string;
  incidentId: string | null;
  channel: ChannelType;
  /** The target as its channel describes it (no secrets). */
  target: string;
} & NotificationOrigin;

/** What a notice says. */
export interface NoticeText {
  /** `schedule.handoff`, `channel.test`, `contact.verification`. */
  event: string;
  subject: string;
  text: string;
}

/** A send now waits this long, at most, for its paced slot. */
const SEND_NOW_WAIT_MS = 5_000;
/** A paced send this close to its turn goes: a timer firing a little early is not a burst. */
const PACE_TOLERANCE_MS = 50;

/** A notice about no alert, sent to one target: its text is kept with it, so every attempt sends the same. */
export interface NoticeInput {
  orgId: string;
  source: 'handoff' | 'flapping' | 'test' | 'verification';
  /** Its idempotency key: the notice goes once however often it is prepared. */
  key: string;
  recipientId: string | null;
  delivery: Delivery;
  notice: NoticeText;
}

interface AttemptResult {
  outcome: Outcome;
  error: string | null;
  responseStatus: number | null;
  ref?: string;
}

export interface NotificationsDeps {
  store: Store;
  repo: NotificationsRepo;
  alerts: AlertsService;
  clock: Clock;
  cursors: CursorCodec;
  log: Logger;
  /** What channels send with (SMTP, the outbound policy, timeouts). */
  channels: ChannelDeps;
  /** The signed acknowledge and resolve links an escalation page carries. */
  pageLinks?: (row: NotificationRow) => { acknowledgeUrl: string; resolveUrl: string } | null;
  /**
   * The clock of send slots: a provider's rate limit is in real seconds, whatever clock the rest of the
   * service runs on (tests move theirs by hand).
   */
  paceClock: Clock;
  /** Each organization's set-up of the channels that need one (settings-service.ts). */
  settings?: Pick<SettingsService, 'get'>;
  /** Reply codes, and the answers that come back through channels (answers-service.ts). */
  answers?: Pick<AnswersService, 'replyCode'>;
  /** The answers' log, shown with each notification. */
  answerRows: AnswersRepo;
  /**
   * How long an attempt that recorded nothing holds its notification; the job queue's lease, so a job taken
   * over can send at once. Raised, if shorter, to the channel's longest attempt plus 5 s (email 50 s, webhook 15 s).
   */
  attemptLeaseMs?: number;
  /** Counts delivered pages (analytics-service.ts). */
  analytics?: Pick<AnalyticsService, 'pagesSent'>;
  /** Told of every attempt: its channel, outcome and duration in seconds (the metrics). */
  onAttempt?: (channel: string, outcome: AttemptResult['outcome'], seconds: number) => void;
}

/** What a delivery attempt sends besides its target: the event it is for, and a workflow email's own subject. */
export interface DeliverOptions {
  event?: string;
  subject?: string;
  /** One attempt only: a failure worth retrying is recorded `failed` (a test page says how it went at once). */
  once?: boolean;
}

/**
 * Notification delivery through the channel registry, and its log: one path for every page and notice, with
 * the same retries, circuit breakers and log. Callers `prepare` a notification inside the transaction that
 * queues its delivery job, and the job calls `deliver`.
 */
export function notificationsService(deps: NotificationsDeps) {
  const { store, repo, alerts, clock, cursors, log } = deps;
  const channelDeps = deps.channels;
  // Per process: each worker process learns on its own that a host is down (after a few timeouts).
  const hosts = breakers();
  // Claims and records of the attempts under way share commits (db/group-commit.ts): two commits per page cost more
  // than its send. The pages a commit records as sent are counted by analytics in it, all at once.
  const claims = commitTogether<NotificationRow | undefined>(store);
  const records = commitTogether<{ recorded: boolean; sent: PageSent | null }>(store, async (trx, done) => {
    const sent = done.flatMap((d) => (d.recorded && d.sent ? [d.sent] : []));
    if (sent.length > 0 && deps.analytics) await deps.analytics.pagesSent(trx, sent);
  });
  const breakerPolicy: BreakerPolicy = { ...BREAKER, probeMs: channelDeps.webhookTimeoutMs + 5_000 };
  /** Attempts waiting for their turn at a host, first come first served (breaker-fns.ts: attempts at once are bounded). */
  const waiting = new Map<string, Array<{ begun: () => void; deferred: (e: DeliveryDeferred) => void }>>();

  /** Begins an attempt to `host` if one may begin now (see `admit`). */
  function tryBegin(host: string): Admission {
    const admission = admit(hosts, breakerPolicy, host, clock.now());
    if (admission.ok) begin(hosts, breakerPolicy, host);
    return admission;
  }

  /** The end of an attempt's turn at its host (see `ended`); only its first call counts. */
  type EndTurn = (up: boolean | null) => void;
  const endOf = (host: string): EndTurn => {
    let over = false;
    return (up) => {
      if (over) return;
      over = true;
      ended(host, up);
    };
  };

  /** Begins an attempt to `host`, once it may begin, and resolves to its end; an open breaker defers the delivery instead. */
  function hostTurn(host: string): Promise<EndTurn> {
    const admission = tryBegin(host);
    if (admission.ok) return Promise.resolve(endOf(host));
    if ('retryAt' in admission) return Promise.reject(new DeliveryDeferred(admission.retryAt));
    return new Promise((begun, deferred) => {
      let queue = waiting.get(host);
      if (!queue) waiting.set(host, (queue = []));
      queue.push({ begun: () => begun(endOf(host)), deferred });
    });
  }

  /** Ends an attempt (see `record`) and hands the turns it freed to the attempts waiting at its host, begun here. */
  function ended(host: string, up: boolean | null): void {
    record(hosts, breakerPolicy, host, up, clock.now());
    const queue = waiting.get(host);
    if (!queue) return;
    while (queue.length > 0) {
      const admission = tryBegin(host);
      if ('busy' in admission) break;
      const next = queue.shift() as (typeof queue)[number];
      if (admission.ok) next.begun();
      else next.deferred(new DeliveryDeferred(admission.retryAt));
    }
    if (queue.length === 0) waiting.delete(host);
  }

  /** Never shorter than the longest attempt of the channel (plus a margin): a live attempt is not taken over and repeated. */
  const leaseOf = (channel: ChannelType): number =>
    Math.max(deps.attemptLeaseMs ?? ATTEMPT_LEASE_MS, (channelOf(channel).attemptMs?.(channelDeps) ?? channelDeps.webhookTimeoutMs) + 5_000);

  /** A page: the alert, its incident and the workflow as they are now; a notice: as it was prepared. */
  async function messageOf(row: NotificationRow, opts: DeliverOptions): Promise<Message> {
    if (row.alert_id === null) {
      const notice = store.readJson<{ event: string; subject: string; text: string } | null>(row.payload ?? 'null');
      if (!notice) throw new PermanentFailure('The notice has no text');
      return { kind: 'notice', ...notice, deliveryId: row.id, sentAt: clock.now() };
    }
    const reads = await repo.pageReads(store.db, row.org_id, row.alert_id, row.incident_id, row.workflow_id);
    if (reads.alert === null) throw new PermanentFailure('The alert no longer exists');
    const alert = alerts.brief(reads.alert);
    const { incident, workflow } = reads;
    return {
      alert,
      incident: incident ? toIncident(incident) : null,
      workflow: row.workflow_id === null ? null : { id: row.workflow_id, name: workflow?.name ?? null },
      event: opts.event ?? workflow?.trigger ?? 'alert.notification',
      alertUrl: alertUrl(channelDeps.baseUrl, row.alert_id),
      ...deps.pageLinks?.(row),
      deliveryId: row.id,
      sentAt: clock.now(),
      ...(opts.subject !== undefined && opts.subject.trim() !== '' && { subject: opts.subject }),
    };
  }

  /**
   * Records an attempt's outcome and returns the row as it now is. A page delivered is counted by analytics in the
   * same transaction (`page`: the message sent), once: only the attempt whose outcome is recorded counts it.
   */
  async function settle(row: NotificationRow, attempt: number, r: AttemptResult, once: boolean, page: Message | null): Promise<NotificationRow> {
    const now = clock.now();
    const exhausted = r.outcome === 'retry' && (once || attempt >= MAX_ATTEMPTS);
    const status = r.outcome === 'sent' ? 'sent' : r.outcome === 'failed' || exhausted ? 'failed' : 'pending';
    const error = r.error === null ? null : errorLine(exhausted && !once ? `Gave up after ${attempt} attempts: ${r.error}` : r.error);
    const result = {
      status,
      last_error: r.outcome === 'retry' && error === null ? 'Failed' : error,
      response_status: r.responseStatus,
      sent_at: status === 'sent' ? now : null,
      ...(r.ref !== undefined && { provider_ref: r.ref.slice(0, 200) }),
    };
    const sent: PageSent | null = status === 'sent' && page && !isNotice(page) ? {
      alert: { orgId: row.org_id, severity: page.alert.severity, clientId: page.alert.clientId, integrationId: page.alert.integrationId, fingerprint: page.alert.fingerprint, title: page.alert.title, labels: page.alert.labels },
      incidentId: page.incident?.id ?? row.incident_id, recipientId: row.recipient_id, at: now,
    } : null;
    const { recorded } = await records(async (trx) => ({ recorded: await repo.record(trx, row.id, attempt, result, now), sent }));
    const level = status === 'sent' ? 'info' : 'warn';
    log[level]({ notificationId: row.id, orgId: row.org_id, alertId: row.alert_id, channel: row.channel, attempt, status, responseStatus: r.responseStatus, error }, 'notification delivery');
    // Recorded: the row is the claimed one with this outcome (record's own columns), read no more; else another came first.
    if (recorded) return { ...row, ...result, paced_at: null, updated_at: now };
    return (await repo.get(store.db, row.id)) ?? row;
  }

  const insert = async (db: Kysely<DB>, row: NotificationRow): Promise<{ id: string; created: boolean }> => {
    if (await repo.insertIfAbsent(db, row)) return { id: row.id, created: true };
    const existing = await repo.byKey(db, row.idempotency_key);
    if (!existing) throw new Error(`Notification ${row.idempotency_key} neither inserted nor found`);
    return { id: existing.id, created: false };
  };

  const blank = (orgId: string, channel: ChannelType, target: string, key: string, now: number) => ({
    id: newId('ntf'), org_id: orgId, channel, target, idempotency_key: key,
    status: 'pending', attempts: 0, last_error: null, response_status: null, created_at: now, updated_at: now, sent_at: null,
    provider_ref: null, provider_status: null, paced_at: null,
  });

  /**
   * The send slot of an attempt under its channel's pace: the one the row holds, else a new one taken now (of
   * two workers on the same job, one holds it and the other uses it). Null when not paced.
   */
  async function slotOf(row: NotificationRow, pace: { key: string; everyMs: number } | null, now: number): Promise<number | null> {
    if (pace === null) return null;
    if (row.paced_at !== null) return Number(row.paced_at);
    const slot = await repo.reserveSlot(store.db, pace.key, pace.everyMs, now);
    if (await repo.holdSlot(store.db, row.id, row.attempts, slot)) return slot;
    const current = await repo.get(store.db, row.id);
    return current?.paced_at === null || current?.paced_at === undefined ? slot : Number(current.paced_at);
  }

  /** The organization's set-up of a channel that needs one; a PermanentFailure, in words, when it has none. */
  async function orgSetup(orgId: string, type: ChannelType): Promise<OrgSetup> {
    const c = channelOf(type);
    if (!c.settings) return { orgId, settings: null };
    const settings = (await deps.settings?.get(orgId, type)) ?? null;
    if (!settings) throw new PermanentFailure(`${c.label} is not set up for this organization (Settings, Channels)`);
    return { orgId, settings };
  }

  /** A page of a channel with reply codes gets its code for the address paged (one live code per address and incident). */
  async function withReplyCode(message: Message, channel: Channel, target: ChannelTarget, row: NotificationRow): Promise<Message> {
    if (!channel.replyCodes || isNotice(message) || message.incident === null || !deps.answers) return message;
    const replyCode = await deps.answers.replyCode(store.db, {
      address: channel.replyCodes.address(target), orgId: row.org_id, notificationId: row.id, incidentId: message.incident.id, incidentNumber: message.incident.number,
    });
    return { ...message, replyCode };
  }

  /** The notification of a notice (as `prepare` for a page): its text is stored with it. */
  const prepareNotice = (db: Kysely<DB>, input: NoticeInput): Promise<{ id: string; created: boolean }> => insert(db, {
    ...blank(input.orgId, input.delivery.channel, channelOf(input.delivery.channel).describe(input.delivery.target), input.key, clock.now()),
    alert_id: null, incident_id: null, workflow_id: null, action_index: null, source: input.source,
    escalation_id: null, step: null, recipient_id: input.recipientId, payload: JSON.stringify(input.notice),
  });

  async function rowOf(id: string): Promise<NotificationRow> {
    const row = await repo.get(store.db, id);
    if (!row) throw new Error(`Notification ${id} not found`);
    return row;
  }

  /**
   * One delivery attempt of a prepared notification to `delivery` (the channel and its target). Already
   * `sent` or `failed`: returns it, sending nothing. Otherwise sends the message (a page built from the alert
   * as it is now, or the notice as prepared) and records the outcome. A retryable failure is recorded and
   * thrown as RetryableDeliveryError (run the job again, with backoff; after MAX_ATTEMPTS it is recorded
   * `failed` instead); a permanent one (4xx, refused URL, no mailer, SMTP 5xx) is recorded `failed` and returned.
   */
  async function deliver(notificationId: string, delivery: Delivery, opts: DeliverOptions = {}): Promise<Notification> {
    const channel = isChannelType(delivery.channel) ? channelOf(delivery.channel) : null;
    const pace = channel?.pace?.(delivery.target, channelDeps) ?? null;
    // A paced page reads its row first, for its send slot; any other page's claim is the first statement it runs
    // (two per page cost more than its send on PostgreSQL: docs/benchmarks.md, "Alert to page: latency and the knee").
    const row = pace === null ? null : await rowOf(notificationId);
    if (row !== null && row.status !== 'pending') return toNotification(row);
    const host = channel?.host(delivery.target) ?? null;
    // May wait for an attempt under way to the same host to end (a host that stopped answering gets only a few).
    const endTurn = host === null ? null : await hostTurn(host);
    try {
      return await attemptInTurn(notificationId, delivery, opts, channel, pace, row, endTurn);
    } finally {
      // Not made after all (deferred, claimed elsewhere, failed before the send): it says nothing about the host.
      endTurn?.(null);
    }
  }

  /** `deliver` once its turn at the host began: the slot of a paced page, the claim, the send, and its record. */
  async function attemptInTurn(notificationId: string, delivery: Delivery, opts: DeliverOptions, channel: Channel | null,
    pace: { key: string; everyMs: number } | null, row: NotificationRow | null, endTurn: EndTurn | null): Promise<Notification> {
    const now = clock.now();
    if (pace !== null && row !== null) {
      // Paced (one SMS a second per number): wait for the slot, queued; the attempt keeps its slot meanwhile.
      const paceNow = deps.paceClock.now();
      const slot = await slotOf(row, pace, paceNow);
      if (slot !== null && slot > paceNow) throw new DeliveryDeferred(now + (slot - paceNow), { exact: true });
      const turn = await repo.takeTurn(store.db, pace.key, pace.everyMs, paceNow, PACE_TOLERANCE_MS);
      if (!turn.ok) throw new DeliveryDeferred(now + (turn.at - paceNow), { exact: true });
    }
    const staleBefore = now - leaseOf(row !== null && isChannelType(row.channel) ? row.channel : delivery.channel);
    const claimed = await claims((trx) => repo.claim(trx, notificationId, row?.attempts ?? null, now, staleBefore));
    if (!claimed) {
      const current = await rowOf(notificationId);
      if (current.status !== 'pending') return toNotification(current);
      throw new RetryableDeliveryError('Another attempt of this notification is in progress', current.attempts);
    }
    const attempt = claimed.attempts;
    let result: AttemptResult;
    let message: Message | null = null;
    const started = performance.now();
    try {
      if (channel === null || delivery.channel !== claimed.channel) throw new PermanentFailure(`A ${delivery.channel} delivery cannot deliver a ${claimed.channel} notification`);
      const off = channel.unavailable?.(channelDeps);
      if (off) throw new PermanentFailure(off);
      const org = await orgSetup(claimed.org_id, delivery.channel);
      message = await withReplyCode(await messageOf(claimed, opts), channel, delivery.target, claimed);
      result = await channel.send(channelDeps, message, delivery.target, org);
      // Only attempts that reached for the host count (a refused URL or a missing alert says nothing about it),
      // and only going unanswered counts against it: a quick 5xx costs a worker little, a timeout costs it seconds.
      endTurn?.(result.outcome !== 'retry' || result.responseStatus !== null);
    } catch (err) {
      result = err instanceof PermanentFailure
        ? { outcome: 'failed', error: err.message, responseStatus: null }
        : { outcome: 'retry', error: `Internal error: ${errorSummary(err).message ?? 'unknown'}`, responseStatus: null };
    }
    deps.onAttempt?.(claimed.channel, result.outcome, (performance.now() - started) / 1000);
    const settled = await settle(claimed, attempt, result, opts.once === true, message);
    if (settled.status === 'pending') throw new RetryableDeliveryError(settled.last_error ?? 'Delivery failed', attempt);
    return toNotification(settled);
  }

  return {
    deliver,

    /**
     * The notification of one page: inserted `pending` in the caller's transaction (`db`), unless it exists
     * already (the unique idempotency key decides), in which case its id is returned with `created: false`.
     * Queue the delivery job only when `created`.
     */
    async prepare(db: Kysely<DB>, input: PrepareInput): Promise<{ id: string; created: boolean }> {
      const escalation = input.source === 'escalation';
      const key = escalation
        ? input.key
        : `${input.perIncident && input.incidentId !== null ? incidentKey(input.incidentId, input.workflowId, input.actionIndex) : idempotencyKey(input.alertId, input.workflowId, input.actionIndex)}${input.recipient === undefined ? '' : `:${input.recipient.toLowerCase()}`}`;
      return insert(db, {
        ...blank(input.orgId, input.channel, input.target, key, clock.now()),
        alert_id: input.alertId,
        incident_id: input.incidentId,
        workflow_id: escalation ? null : input.workflowId,
        action_index: escalation ? null : input.actionIndex,
        source: input.source ?? 'workflow',
        escalation_id: escalation ? input.escalationId : null,
        step: escalation ? input.step : null,
        recipient_id: escalation ? input.recipientId : null,
        payload: null,
      });
    },

    prepareNotice,

    /**
     * A notice sent now to one target (a test page, a verification code): prepared and attempted once, the
     * outcome returned (sent, or the provider's error in words). Through the same path as every notification,
     * logged with its source. A paced channel's slot a few seconds away is waited for.
     */
    async sendNow(orgId: string, delivery: Delivery, notice: NoticeText, who: { source: 'test' | 'verification'; recipientId: string | null }): Promise<Notification> {
      const { id } = await prepareNotice(store.db, { orgId, source: who.source, key: `${who.source}:${newId('ntc')}`, recipientId: who.recipientId, delivery, notice });
      // Its slot, then its turn (a late send before it can take a little of the slot): waits up to SEND_NOW_WAIT_MS in all.
      for (let waited = 0; ;) {
        try {
          return await deliver(id, delivery, { event: notice.event, once: true });
        } catch (err) {
          if (!(err instanceof DeliveryDeferred)) throw err;
          const wait = Math.max(1, err.retryAt - clock.now());
          if (err.exact && waited + wait <= SEND_NOW_WAIT_MS) {
            waited += wait;
            await new Promise((r) => setTimeout(r, wait));
            continue;
          }
          await repo.record(store.db, id, 0, { status: 'failed', last_error: err.exact ? 'Not sent: too many messages to this number just now; try again in a minute' : 'Not attempted: the host failed repeatedly just now; try again in a minute', response_status: null, sent_at: null }, clock.now());
          return toNotification((await repo.get(store.db, id)) as NotificationRow);
        }
      }
    },

    /**
     * A test page to a channel target of an escalation step or a workflow (`POST /channels/{type}/test`): the
     * target as typed, or as saved (a secret sent as the mask stands for the saved one of the same target,
     * among `saved`); checked as saving would check it. 404 for a channel that takes no such targets.
     */
    async testTarget(orgId: string, type: string, target: ChannelTarget, saved: readonly ChannelTarget[], who: { name: string }): Promise<Notification> {
      if (!isChannelType(type) || !channelsFor('escalation').concat(channelsFor('workflow')).includes(type)) throw notFound('Channel');
      const channel = channelOf(type);
      const problems = targetProblems(channel, target, channelDeps.outboundAllow);
      if (problems.length > 0) throw new AppError('VALIDATION_ERROR', 'Target is invalid', problems);
      const kept = keepSecrets(channel, target, saved);
      if (!kept.ok) throw new AppError('VALIDATION_ERROR', 'Target is invalid', kept.errors);
      return this.sendNow(orgId, { channel: type, target: kept.target }, testNotice(who.name, clock.now()), { source: 'test', recipientId: null });
    },

    /**
     * `GET /channels`: every channel of the registry with its target's fields, and whether it can send now for
     * this organization (its provider configured by the operator, its app or bot set up by the organization).
     */
    async catalogue(orgId: string): Promise<ChannelInfo[]> {
      const out: ChannelInfo[] = [];
      for (const type of CHANNEL_TYPES) {
        const c = channelOf(type);
        const off = c.unavailable?.(channelDeps) ?? (c.settings && !(await deps.settings?.get(orgId, type)) ? 'not set up for this organization yet (Settings, Channels)' : null);
        out.push({ type, label: c.label, about: c.about, uses: [...CHANNELS[type].uses], available: off === null, unavailable: off, fields: catalogueFields(c), linked: c.linking !== undefined, verified: c.verification === 'code' });
      }
      return out;
    },

    /**
     * Shows the sent pages of an incident as the incident is now, in the channels that can change a sent
     * message (Slack's chat.update, Telegram's editMessageText): run whenever the incident changes status, by
     * any route. A failure worth retrying is thrown (the job runs again); others are logged.
     */
    async refreshIncident(orgId: string, incidentId: string): Promise<void> {
      const rows = (await forIncident(store.db, orgId, incidentId)).filter((r) => r.status === 'sent' && r.provider_ref !== null && isChannelType(r.channel) && channelOf(r.channel).refresh);
      let retry: string | null = null;
      for (const row of rows) {
        const type = row.channel as ChannelType;
        const channel = channelOf(type);
        try {
          const r = await (channel.refresh as NonNullable<Channel['refresh']>)(channelDeps, await messageOf(row, {}), row.provider_ref as string, await orgSetup(orgId, type));
          if (r.outcome === 'retry') retry = r.error;
          else if (r.outcome === 'failed') log.warn({ notificationId: row.id, orgId, channel: type, error: r.error }, 'message update refused');
        } catch (err) {
          log.warn({ notificationId: row.id, orgId, channel: type, error: errorSummary(err) }, 'message update failed');
        }
      }
      if (retry !== null) throw new Error(`A message update will be retried: ${retry}`);
    },

    /**
     * Escalation pages no longer due (their incident answered, or their escalation restarted for a new
     * assignee): those not yet sent are cancelled in the caller's transaction, so their delivery jobs send nothing.
     */
    cancelPages: (db: Kysely<DB>, orgId: string, scope: { incidentId: string } | { escalationId: string }, why: string): Promise<number> =>
      repo.cancelPages(db, orgId, scope, `Not sent: ${why} before it left`, clock.now()),

    /**
     * `GET /alerts/{id}/notifications`: the alert's delivery log, newest first, as `viewer` (a member's id, null
     * for a key) may see it: another person's URL targets by their host; 404 for another organization's alert.
     */
    async listForAlert(orgId: string, viewer: string | null, alertId: string, query: NotificationListQuery): Promise<Page<Notification>> {
      if (!(await repo.alertExists(store.db, orgId, alertId))) throw notFound('Alert');
      const limit = query.limit ?? 25;
      let answers = new Map<string, AnswerRow[]>();
      return paginate(cursors, `${orgId}:notifications:${alertId}`, { limit, cursor: query.cursor },
        async (after) => {
          const rows = await repo.page(store.db, orgId, alertId, limit, after);
          answers = Map.groupBy(await deps.answerRows.forNotifications(store.db, orgId, rows.map((r) => r.id)), (a) => a.notification_id);
          return rows;
        },
        () => repo.count(store.db, orgId, alertId),
        (r) => ({ ...toNotification(r, answers.get(r.id)), target: targetShownTo(isChannelType(r.channel) ? channelOf(r.channel) : undefined, r, viewer) }));
    },
  };
}
export type NotificationsService = ReturnType<typeof notificationsService>;
