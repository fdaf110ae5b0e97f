import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { API_VERSION } from './http/app.ts';
import type { Store } from './db/database.ts';
import { openMigratedStore } from './db/migrations/index.ts';
import type { Limits } from './http/auth.ts';
import { threadedMailer } from './infra/mailer.ts';
import { pgBossQueue } from './infra/queue/pgboss-queue.ts';
import { sqliteQueue } from './infra/queue/sqlite-queue.ts';
import { groupCap } from './infra/queue/fairness-fns.ts';
import { eventRelay, type AlertEvent } from './modules/automation/event-relay.ts';
import { workflowRunner, type DeliveryJob } from './modules/automation/workflow-runner.ts';
import { escalationsRepo } from './modules/escalations/escalations-repo.ts';
import { escalationsService, type EscalationJob } from './modules/escalations/escalations-service.ts';
import { pageLinksService } from './modules/escalations/page-links-service.ts';
import { heartbeatsRepo } from './modules/heartbeats/heartbeats-repo.ts';
import { importsRepo } from './modules/imports/imports-repo.ts';
import { importsService } from './modules/imports/imports-service.ts';
import { IMPORT_SOURCES } from './modules/imports/sources/registry.ts';
import { heartbeatsService } from './modules/heartbeats/heartbeats-service.ts';
import { incidentsRepo } from './modules/incidents/incidents-repo.ts';
import { incidentsService, type IncidentTimer } from './modules/incidents/incidents-service.ts';
import { liveRepo } from './modules/live/live-repo.ts';
import { liveFeed } from './modules/live/live-feed.ts';
import { liveService } from './modules/live/live-service.ts';
import { createMetrics } from './infra/metrics.ts';
import { limiterFactory } from './infra/rate-limit.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { errorSummary } from './lib/logger.ts';
import { CursorCodec } from './lib/pagination.ts';
import { analyticsRepo } from './modules/analytics/analytics-repo.ts';
import { analyticsService } from './modules/analytics/analytics-service.ts';
import { clientBoardService } from './modules/analytics/client-board-service.ts';
import { reportsRepo } from './modules/reports/reports-repo.ts';
import { reportsService } from './modules/reports/reports-service.ts';
import { alertsRepo } from './modules/alerts/alerts-repo.ts';
import { alertsService } from './modules/alerts/alerts-service.ts';
import { alertWriter } from './modules/alerts/alert-writer.ts';
import { apiKeysRepo } from './modules/api-keys/api-keys-repo.ts';
import { apiKeysService } from './modules/api-keys/api-keys-service.ts';
import { auditRepo } from './modules/audit/audit-repo.ts';
import { auditService } from './modules/audit/audit-service.ts';
import { authRepo } from './modules/auth/auth-repo.ts';
import { authService } from './modules/auth/auth-service.ts';
import { clientsRepo } from './modules/clients/clients-repo.ts';
import { clientsService } from './modules/clients/clients-service.ts';
import { contactsRepo } from './modules/contacts/contacts-repo.ts';
import { contactsService } from './modules/contacts/contacts-service.ts';
import { periodic } from './lib/periodic.ts';
import { flapNotices } from './modules/automation/flap-notices.ts';
import { inboundRepo } from './modules/inbound/inbound-repo.ts';
import { inboundService } from './modules/inbound/inbound-service.ts';
import { ingestCache } from './modules/ingest/ingest-cache.ts';
import { ingestRepo } from './modules/ingest/ingest-repo.ts';
import { ingestService } from './modules/ingest/ingest-service.ts';
import { deliveryStats } from './modules/integrations/delivery-stats.ts';
import { integrationsRepo } from './modules/integrations/integrations-repo.ts';
import { integrationsService } from './modules/integrations/integrations-service.ts';
import { notificationsRepo } from './modules/notifications/notifications-repo.ts';
import { answersRepo } from './modules/notifications/answers-repo.ts';
import { answersService } from './modules/notifications/answers-service.ts';
import { settingsRepo } from './modules/notifications/settings-repo.ts';
import { settingsService } from './modules/notifications/settings-service.ts';
import { notificationsService, SMTP_TIMEOUT_MS } from './modules/notifications/notifications-service.ts';
import type { ChannelDeps } from './modules/notifications/channels/channel.ts';
import { ACCOUNT_FALLBACK } from './modules/notifications/channels/registry.ts';
import { orgsRepo } from './modules/orgs/orgs-repo.ts';
import { orgsService } from './modules/orgs/orgs-service.ts';
import { schedulesRepo } from './modules/schedules/schedules-repo.ts';
import { schedulesService } from './modules/schedules/schedules-service.ts';
import { calendarFeedsRepo } from './modules/schedules/calendar-feeds-repo.ts';
import { calendarFeedsService } from './modules/schedules/calendar-feeds-service.ts';
import { suppressionRepo } from './modules/suppression/suppression-repo.ts';
import { suppressionService } from './modules/suppression/suppression-service.ts';
import { usersRepo } from './modules/users/users-repo.ts';
import { passwords } from './modules/users/passwords.ts';
import { usersService } from './modules/users/users-service.ts';
import { workflowsRepo } from './modules/workflows/workflows-repo.ts';
import { workflowsService } from './modules/workflows/workflows-service.ts';

async function serverSecret(store: Store): Promise<string> {
  const row = await store.db.selectFrom('meta').select('value').where('key', '=', 'server_secret').executeTakeFirstOrThrow();
  return row.value;
}

/** How long shutdown waits for running jobs before handing them back to the queue. */
const JOB_STOP_TIMEOUT_MS = 10_000;
/** Live events are kept an hour: a dashboard away longer refetches everything. */
const LIVE_RETENTION_MS = 3_600_000;
const LIVE_PRUNE_EVERY_MS = 300_000;
/** The event stream's pace: heartbeat, credential re-check, and how much unread output a client may leave. */
const LIVE_STREAM_TIMING = { heartbeatMs: 15_000, recheckMs: 2_000, maxBufferBytes: 1024 * 1024 };

/** A snooze's end is retried like an escalation step: it must not be lost to a passing store error. */
const INCIDENT_TIMER_RETRY = { limit: 10, delaySeconds: 2 };

/** A job of the `message-updates` queue: the incident whose chat messages are to show its state now. */
interface MessageUpdate {
  orgId: string;
  incidentId: string;
}
const MESSAGE_UPDATE_RETRY = { limit: 5, delaySeconds: 2 } as const;

/** Failed sign-ins are counted over 15 minutes. */
const SIGN_IN_WINDOW_SECONDS = 900;

/** The composition root: the one place that picks implementations and wires dependencies. */
export async function createContainer(config: Config, opts: { log: Logger; clock?: Clock; workers?: boolean }) {
  const clock = opts.clock ?? systemClock;
  const log = opts.log;
  // Job workers, the relay and the sweepers run here unless the caller (a role, a one-shot command) says otherwise.
  const workers = opts.workers ?? config.jobs.workers;
  const { store } = await openMigratedStore(config.store);
  const metrics = createMetrics({ store, now: () => Date.now() });
  const secret = await serverSecret(store);
  const cursors = new CursorCodec(secret);

  // Loaded only when configured: a single instance on the embedded store needs no Redis client.
  const redis = config.redisUrl
    // No offline queue: while disconnected a command fails at once and the limiter falls back to memory.
    ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: true, enableOfflineQueue: false })
    : undefined;
  if (redis) {
    await redis.connect();
    // Reconnection is automatic; an outage is logged rather than left as an unhandled 'error' event.
    redis.on('error', (err: unknown) => log.warn({ error: errorSummary(err) }, 'Redis unavailable; rate limits count in memory meanwhile'));
  }
  const limiter = limiterFactory(clock, redis);
  const rl = config.rateLimits;
  const limits: Limits = {
    api: limiter.create('api', rl.apiPerMinute, 60),
    ingest: limiter.create('ingest', rl.ingestPerMinute, 60),
    apiKeysPerDay: limiter.create('keys', rl.apiKeysPerDay, 86_400),
    authFailures: limiter.create('authfail', rl.authFailuresPerMinute, 60),
    signInFailuresPerAddress: limiter.create('signin-ip', rl.signInFailuresPerAddress, SIGN_IN_WINDOW_SECONDS),
    signInFailuresPerAccountAddress: limiter.create('signin-account-ip', rl.signInFailuresPerAccountAddress, SIGN_IN_WINDOW_SECONDS),
    signInFailuresPerAccount: limiter.create('signin-account', rl.signInFailuresPerAccount, SIGN_IN_WINDOW_SECONDS),
    signInFailuresPerDevice: limiter.create('signin-device', rl.signInFailuresPerDevice, SIGN_IN_WINDOW_SECONDS),
    credentialFailures: limiter.create('authfail-cred', rl.authFailuresPerCredentialPerMinute, 60),
  };

  const audit = auditService({ store, repo: auditRepo(), clock, cursors, log });
  const apiKeys = apiKeysService({ store, repo: apiKeysRepo(store), audit, clock, cursors, env: config.env });
  // Emails go out from a thread of their own (mailer.ts).
  const mailer = config.smtpUrl ? threadedMailer(config.smtpUrl, { sends: config.jobs.deliveryConcurrency }) : null;
  // What every channel sends with; channels that cannot send without their provider say so (GET /channels).
  const channelDeps: ChannelDeps = {
    mailer, smtpFrom: config.smtpFrom, baseUrl: config.baseUrl, userAgent: `AlertFlow/${API_VERSION}`, outboundAllow: config.outboundAllow,
    webhookTimeoutMs: config.webhookTimeoutSeconds * 1000, smtpTimeoutMs: SMTP_TIMEOUT_MS, providers: config.providers,
  };
  // A handoff notice is a notification like any other: prepared and queued in one transaction, then delivered (made further down).
  const scheduleRows = schedulesRepo();
  const schedules = schedulesService({
    store, repo: scheduleRows, audit, clock, cursors, log,
    handoff: async (db, h) => {
      const delivery = { channel: ACCOUNT_FALLBACK.channel, target: ACCOUNT_FALLBACK.target(h.email) };
      const n = await notifications.prepareNotice(db, { orgId: h.orgId, source: 'handoff', key: h.key, recipientId: h.userId, delivery, notice: { event: 'schedule.handoff', subject: h.subject, text: h.text } });
      if (n.created) await runner.queueDelivery(db, { notificationId: n.id, orgId: h.orgId, ...delivery }, 'schedule.handoff');
      return n.created;
    },
  });
  const calendarFeeds = calendarFeedsService({ store, repo: calendarFeedsRepo(), schedulesRepo: scheduleRows, schedules, audit, clock, baseUrl: config.baseUrl });
  // The live stream's writing side: what alerts and incidents record is read by the live service (made below).
  const liveEvents = liveFeed({ dialect: store.dialect, wake: () => live.nudge() });
  const incidentRows = incidentsRepo({ live: liveEvents });
  const alertRows = alertsRepo(store);
  // Every change of an alert, with its counters, outbox event and live event; wakes the relay (made below) after commit.
  const analyticsRows = analyticsRepo(store);
  const analytics = analyticsService({ store, repo: analyticsRows, clock });
  const alertWrites = alertWriter({ store, live: liveEvents, wakeRelay: () => relay.nudge(), analytics });
  // Acknowledging, resolving or reassigning an incident stops or restarts its escalation (made further down).
  const incidents = incidentsService({
    store, repo: incidentRows, alerts: alertWrites, audit, clock, cursors, analytics,
    escalation: {
      incidentAnswered: (...args) => escalations.incidentAnswered(...args),
      incidentReassigned: (...args) => escalations.incidentReassigned(...args),
      incidentRetriggered: (...args) => escalations.incidentRetriggered(...args),
    },
    // A snooze's end is a queued job (the queue is made further down).
    timers: (db, timer, delayMs) => queue.send<IncidentTimer>(db, 'incident-timers', timer, INCIDENT_TIMER_RETRY, { delayMs, group: timer.orgId }),
    // Chat messages of its pages show its state: updated by a job queued with the change.
    statusChanged: (db, incident) => queue.send<MessageUpdate>(db, 'message-updates', { orgId: incident.org_id, incidentId: incident.id }, MESSAGE_UPDATE_RETRY, { group: incident.org_id }),
    minuteMs: config.escalationMinuteMs,
  });
  const hashes = passwords(config.passwordHashMemoryKib);
  const users = usersService({
    store, repo: usersRepo(), audit, clock, cursors, log, mailer, smtpFrom: config.smtpFrom, baseUrl: config.baseUrl, passwords: hashes,
    forgetMember: [incidents.unassignMember, schedules.forgetMember, calendarFeeds.forgetMember],
  });
  const contacts = contactsService({
    store, repo: contactsRepo(), audit, clock, outboundAllow: config.outboundAllow, channels: channelDeps,
    sendNow: (...args) => notifications.sendNow(...args),
    settingsOf: (orgId, type) => settings.get(orgId, type),
  });
  const orgs = orgsService({ store, repo: orgsRepo(), users, apiKeys, audit, clock });
  const auth = authService({
    store, repo: authRepo(), orgs, users, audit, clock, log,
    sessionLimits: { idleMs: config.sessions.idleMinutes * 60_000, absoluteMs: config.sessions.absoluteHours * 3_600_000 },
    signInFailures: {
      perAddress: limits.signInFailuresPerAddress, perAccountAddress: limits.signInFailuresPerAccountAddress,
      perAccount: limits.signInFailuresPerAccount, perDevice: limits.signInFailuresPerDevice,
    },
    deviceSecret: secret,
    passwords: hashes,
  });
  const clientRows = clientsRepo();
  const clients = clientsService({ store, repo: clientRows, alerts: alertWrites, audit, clock, cursors });
  const workflows = workflowsService({ store, repo: workflowsRepo(), audit, clock, cursors, outboundAllow: config.outboundAllow });
  const integrationRows = integrationsRepo();
  const stats = deliveryStats({ store, repo: integrationRows, log });
  const integrations = integrationsService({ store, repo: integrationRows, clients: clientRows, audit, stats, clock, cursors, baseUrl: config.baseUrl });
  const alerts = alertsService({ store, repo: alertRows, writer: alertWrites, incidents, audit, clock, cursors });
  const suppressionRows = suppressionRepo(store);
  const ingestRows = ingestRepo(store);
  const ingestConfig = ingestCache({
    repo: ingestRows,
    now: () => clock.now(),
    loadOrg: async (orgId, at) => ({
      windows: await suppressionRows.notEnded(store.db, orgId, at),
      clientsBySlug: new Map((await clientRows.slugs(store.db, orgId)).map((c) => [c.slug, c.id])),
    }),
  });
  const ingest = ingestService({ store, repo: ingestRows, writer: alertWrites, cache: ingestConfig, clock, batchMax: config.ingestBatchMax, writerThread: config.ingestWriterThread });
  const clientBoard = clientBoardService({ store, repo: analyticsRows, analytics, suppression: suppressionRows, clock });
  const inbound = inboundService({ store, repo: inboundRepo(), ingest, alerts, clock, log });
  const suppression = suppressionService({ store, repo: suppressionRows, alerts: alertWrites, audit, clock, cursors, log });
  const sweeper = workers ? suppression.startSweeper(config.suppressionSweepSeconds * 1000) : undefined;
  const flapSweeper = workers ? periodic(config.flapSweepSeconds * 1000, () => alertWrites.settleFlaps(store.db, clock.now()), log, 'flap sweep failed') : undefined;
  const notificationRows = notificationsRepo(store);
  const answerRows = answersRepo();
  // Answers through channels (an SMS reply, a key on a call, a chat button) move incidents through their service.
  const answers = answersService({ store, repo: answerRows, notifications: notificationRows, incidents, audit, clock });
  const settings = settingsService({ store, repo: settingsRepo(), audit, clock, channels: channelDeps });
  const notifications = notificationsService({
    store, repo: notificationRows, alerts, clock, paceClock: systemClock, cursors, log, channels: channelDeps, attemptLeaseMs: config.jobs.leaseSeconds * 1000, answers, answerRows, analytics, settings,
    onAttempt: metrics.delivery,
    pageLinks: (row) => escalations.pageLinks(row),
  });

  // Follow-up work of alert changes: the outbox relay feeds the queue, the runner runs workflows and deliveries.
  const timing = { pollMs: config.jobs.pollMs, leaseMs: config.jobs.leaseSeconds * 1000, concurrency: config.jobs.concurrency };
  const queue = store.dialect === 'postgres' && config.store.kind === 'postgres'
    ? await pgBossQueue({ url: config.store.url, log, timing, supervise: workers })
    : sqliteQueue({ store, log, timing });
  const relay = eventRelay({ store, queue, log, pollMs: config.jobs.pollMs });
  const heartbeats = heartbeatsService({
    store, repo: heartbeatsRepo(), clients: clientRows, ingest, audit, clock, cursors, log, baseUrl: config.baseUrl,
  });
  const heartbeatChecker = workers ? heartbeats.startChecker(config.heartbeatCheckSeconds * 1000) : undefined;
  const handoffChecker = workers ? schedules.startHandoffChecker(config.handoffCheckSeconds * 1000) : undefined;
  const reports = reportsService({ store, repo: reportsRepo(), analytics, clock, log, mail: { mailer, from: config.smtpFrom, baseUrl: config.baseUrl } });
  const reportSender = workers ? reports.startSender(config.reportCheckSeconds * 1000) : undefined;
  const live = liveService({
    store, repo: liveRepo(), clock, log,
    // PostgreSQL wakes the poller by NOTIFY, so its poll is only a fallback; SQLite has no such signal.
    opts: {
      pollMs: config.livePollMs ?? (config.store.kind === 'postgres' ? 2_000 : 250),
      listenUrl: config.store.kind === 'postgres' ? config.store.url : null,
      maxStreamsPerOrg: 50,
      retentionMs: LIVE_RETENTION_MS,
    },
  });
  const livePruner = workers ? live.startPruner(LIVE_PRUNE_EVERY_MS) : undefined;
  const escalationRows = escalationsRepo();
  const escalations = escalationsService({
    store, repo: escalationRows, incidents: incidentRows, audit, clock, cursors, queue, schedules, members: contacts, notifications,
    queueDelivery: (db, delivery) => runner.queueDelivery(db, delivery),
    minuteMs: config.escalationMinuteMs, secret, baseUrl: config.baseUrl, outboundAllow: config.outboundAllow, log,
  });
  const pageLinks = pageLinksService({ store, repo: escalationRows, incidents, audit, clock, secret });
  const runner = workflowRunner({
    store, alerts: alertRows, writer: alertWrites, incidents, notifications, schedules, escalations, queue, clock, log,
    flapNotices: () => notices,
  });
  const notices = flapNotices({ store, members: contacts, notifications, queueDelivery: (db, p, event) => runner.queueDelivery(db, p, event) });
  const imports = importsService({
    store, repo: importsRepo(), users, contacts, schedules, escalations, integrations, workflows, orgExists: (id) => orgs.exists(id), clock, log,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), sources: IMPORT_SOURCES,
  });
  if (workers) {
    // One organization's deliveries leave workers free for the others'; retries have workers of their own. Workflow
    // runs are short database work, ordered by fair priority but not capped (a lone tenant keeps every worker).
    const fair = { groupCap: groupCap(config.jobs.concurrency) };
    // Deliveries spend their time waiting on other hosts: sized by DELIVERY_CONCURRENCY, not by cores.
    const sends = { concurrency: config.jobs.deliveryConcurrency, groupCap: groupCap(config.jobs.deliveryConcurrency) };
    // A workflow run is many statements, on PostgreSQL as many round trips: it too waits more than it computes, and
    // four at a time capped a process at about 25 runs a second there (docs/benchmarks.md, "Alert to page: latency and the knee").
    await queue.work<AlertEvent>('alert-events', (job) => runner.handleEvent(job.data), { concurrency: config.jobs.deliveryConcurrency });
    await queue.work<DeliveryJob>('deliveries', (job) => runner.handleDelivery(job.data), sends);
    await queue.work<DeliveryJob>('delivery-retries', (job) => runner.handleDelivery(job.data), sends);
    await queue.work<EscalationJob>('escalations', (job) => escalations.handleJob(job.data));
    await queue.work<MessageUpdate>('message-updates', (job) => notifications.refreshIncident(job.data.orgId, job.data.incidentId), fair);
    await queue.work<IncidentTimer>('incident-timers', (job) => incidents.handleTimer(job.data));
    relay.start();
  }

  return {
    /** The one alert writer (tests run its flap sweep at a time of their choosing). */
    alertWrites,
    config,
    clock,
    store,
    metrics,
    limits,
    audit,
    workflows,
    apiKeys,
    users,
    orgs,
    auth,
    clients,
    integrations,
    /** Integrations' unflushed delivery counts (tests flush them at a time of their choosing). */
    deliveryCounts: stats,
    alerts,
    analytics,
    clientBoard,
    reports,
    ingest,
    ingestCache: ingestConfig,
    inbound,
    suppression,
    notifications,
    answers,
    settings,
    channelDeps,
    schedules,
    calendarFeeds,
    incidents,
    heartbeats,
    contacts,
    escalations,
    pageLinks,
    imports,
    queue,
    relay,
    runner,
    live,
    liveTiming: LIVE_STREAM_TIMING,
    /**
     * Stops taking jobs and lets running ones finish (handing back what does not), flushes buffered audit
     * events and counters, then closes Redis and the store.
     */
    async close(): Promise<void> {
      await relay.stop();
      await live.stop();
      await livePruner?.stop();
      await queue.stop(JOB_STOP_TIMEOUT_MS);
      await sweeper?.stop();
      await heartbeatChecker?.stop();
      await flapSweeper?.stop();
      await handoffChecker?.stop();
      await reportSender?.stop();
      mailer?.close();
      await audit.close();
      await stats.close();
      await ingest.close();
      // quit() needs a live connection; without one, stop reconnecting instead.
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await store.close();
    },
  };
}
export type Container = Awaited<ReturnType<typeof createContainer>>;
