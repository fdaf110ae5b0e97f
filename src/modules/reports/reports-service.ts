import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import type { Mailer } from '../../infra/mailer.ts';
import { iso, isoOrNull, type Clock } from '../../lib/clock.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import { errorSummary } from '../../lib/logger.ts';
import { periodic } from '../../lib/periodic.ts';
import type { Severity } from '../alerts/alerts-fns.ts';
import { monthRange, periodBefore, previousMonth, trendPercent } from '../analytics/analytics-fns.ts';
import type { AnalyticsService } from '../analytics/analytics-service.ts';
import type { IncidentStatus } from '../incidents/incidents-schemas.ts';
import { messageId } from '../notifications/notifications-fns.ts';
import { WorkBudget } from '../../lib/work-budget.ts';
import { occurrencesAfter } from '../suppression/recurrence-fns.ts';
import { zoneClock } from '../schedules/zone-fns.ts';
import { availability, reportEmail } from './reports-fns.ts';
import type { ReportsRepo } from './reports-repo.ts';
import type { ClientReport } from './reports-schemas.ts';

/** Occurrences of one window listed in a report at most. */
const MAX_OCCURRENCES = 50;
/** The monthly report goes out on the 1st; a worker down then still sends it until the end of this day of the month. */
const LAST_SEND_DAY = 3;

export function reportsService(deps: {
  store: Store;
  repo: ReportsRepo;
  analytics: AnalyticsService;
  clock: Clock;
  log: Logger;
  mail: { mailer: Mailer | null; from: string; baseUrl: string };
}) {
  const { store, repo, analytics, clock, log } = deps;

  async function build(orgId: string, clientId: string, period?: string): Promise<ClientReport> {
    const client = await repo.client(store.db, orgId, clientId);
    if (!client) throw notFound('Client');
    const { zone } = await analytics.settings(store.db, orgId);
    const month = period ?? previousMonth(clock.now(), zone);
    const range = monthRange(month, zone);
    if (!range) throw invalid('/period', 'must be a month, YYYY-MM');
    const before = monthRange(periodBefore(month), zone) as { from: number; to: number };
    const { from, to } = range;
    const span = { from: iso(from), to: iso(to), clientId };
    const [volume, previous, times, noisy, incidents, spans, windows] = await Promise.all([
      analytics.volume(orgId, { ...span, bucket: 'day' }),
      analytics.volume(orgId, { from: iso(before.from), to: iso(before.to), bucket: 'month', clientId }),
      analytics.responseTimes(orgId, { ...span, bucket: 'month' }),
      analytics.noisy(orgId, { ...span, by: 'occurrences', limit: 10 }),
      repo.incidents(store.db, orgId, clientId, from, to),
      repo.criticalSpans(store.db, orgId, clientId, from, to),
      repo.windows(store.db, orgId, clientId, from, to),
    ]);
    const series = volume.groups[0]?.series ?? [];
    // One request's recurrence work for every window of the report (src/lib/work-budget.ts).
    const budget = new WorkBudget();
    const maintenance = windows
      .filter((w) => w.client_id !== null || store.readJson<unknown[]>(w.matchers).length === 0)
      .flatMap((w) => occurrencesAfter({ startsAt: Number(w.starts_at), endsAt: Number(w.ends_at), timezone: w.timezone, recurrence: w.recurrence }, from, MAX_OCCURRENCES, budget)
        .filter((o) => o.startsAt < to)
        .map((o) => ({ windowId: w.id, name: w.name, startsAt: iso(o.startsAt), endsAt: iso(o.endsAt) })))
      .sort((a, b) => a.startsAt.localeCompare(b.startsAt));
    return {
      client: { id: client.id, name: client.name, slug: client.slug },
      period: month,
      previousPeriod: periodBefore(month),
      timezone: zone,
      from: iso(from),
      to: iso(to),
      volume: {
        alerts: volume.totals.alerts,
        occurrences: volume.totals.occurrences,
        quickResolves: volume.totals.quickResolves,
        pages: volume.totals.pages,
        previousAlerts: previous.totals.alerts,
        trendPercent: trendPercent(volume.totals.alerts, previous.totals.alerts),
        days: volume.buckets.map((day, i) => ({ day, alerts: series[i]?.alerts ?? 0 })),
      },
      responseTimes: times.overall,
      incidents: {
        total: incidents.total,
        list: incidents.rows.map((i) => {
          const opened = Number(i.created_at);
          const resolved = i.resolved_at === null ? null : Number(i.resolved_at);
          return {
            id: i.id, number: Number(i.number), title: i.title, severity: i.severity as Severity, status: i.status as IncidentStatus,
            openedAt: iso(opened), resolvedAt: isoOrNull(resolved), durationMs: resolved === null ? null : resolved - opened,
          };
        }),
      },
      noisyAlerts: noisy.alerts,
      maintenance,
      availability: availability(spans.map((s) => ({
        start: Number(s.created_at), end: s.resolved_at === null ? null : Number(s.resolved_at),
        service: store.readJson<Record<string, string>>(s.labels).service ?? '',
      })), from, Math.min(to, Math.max(from + 1, clock.now()))),
    };
  }

  /** Sends one claimed report; a failure is recorded on its row, not retried (the claim makes it at most once). */
  async function send(orgId: string, clientId: string, period: string, recipient: string, report: () => Promise<ClientReport>): Promise<void> {
    const { mailer, from, baseUrl } = deps.mail;
    const key = { orgId, clientId, period, recipient };
    let error: string | null = null;
    if (!mailer) error = 'Email is not configured: set SMTP_URL';
    else {
      try {
        const orgName = (await repo.orgName(store.db, orgId)) ?? '';
        const email = reportEmail(await report(), { orgName, reportUrl: `${baseUrl}/clients/${clientId}/report?period=${period}` });
        await mailer.send({ from, to: [recipient], ...email, messageId: messageId(`report.${clientId}.${period}.${Buffer.from(recipient).toString('hex')}`, baseUrl) });
      } catch (err) {
        error = errorSummary(err).message ?? 'sending failed';
      }
    }
    await repo.settle(store.db, key, error === null ? 'sent' : 'failed', error, clock.now());
    log[error === null ? 'info' : 'warn']({ orgId, clientId, period, error }, 'client report email');
  }

  /**
   * One look: for each client with recipients whose organization's clocks show the 1st to the 3rd of a month, last
   * month's report to each recipient not yet claimed. Returns how many were sent (or failed).
   */
  async function checkMonthly(): Promise<number> {
    const at = clock.now();
    let done = 0;
    for (const c of await repo.withRecipients(store.db)) {
      if (zoneClock(c.timezone).wall(at).day > LAST_SEND_DAY) continue;
      const period = previousMonth(at, c.timezone);
      let report: Promise<ClientReport> | null = null;
      const built = () => (report ??= build(c.org_id, c.id, period));
      for (const recipient of JSON.parse(c.report_recipients) as string[]) {
        if (!(await repo.claim(store.db, { orgId: c.org_id, clientId: c.id, period, recipient, at }))) continue;
        await send(c.org_id, c.id, period, recipient, built);
        done += 1;
      }
    }
    return done;
  }

  return {
    build,
    checkMonthly,
    /** The monthly sender of a worker process, every `everyMs`. */
    startSender: (everyMs: number): { stop(): Promise<void> } => periodic(everyMs, checkMonthly, log, 'client report check failed'),
  };
}
export type ReportsService = ReturnType<typeof reportsService>;
