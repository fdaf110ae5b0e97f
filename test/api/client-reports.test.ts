import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { AlertDims, Fact } from '../../src/modules/analytics/analytics-fns.ts';
import { createContainer, type Container } from '../../src/container.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { startSmtpSink, type SmtpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

const t = (s: string): number => Date.parse(s);
const MIN = 60_000;
/** March 2026 in Berlin: 2026-02-28T23:00Z to 2026-03-31T22:00Z, 743 hours (the clocks go forward on the 29th). */
const MARCH_MS = 743 * 3_600_000;
const HOSTILE = '<script>alert(1)</script> & "quotes"';

/**
 * A client's monthly report: its figures against hand-counted values, and the email of the 1st sent by two
 * instances on one store through a real SMTP server, once per recipient.
 */
eachStore('client reports', { together: true }, (kind) => {
  let h: Harness;
  let smtp: SmtpSink;
  let second: Container;
  let alpha: string;
  let beta: string;
  let n = 0;

  /** An alert row as ingest stores it, at a chosen time. */
  const alert = (clientId: string, severity: string, service: string | null, createdAt: number, resolvedAt: number | null) => {
    n += 1;
    return {
      id: `alt_report_${n}`, org_id: h.org.id, integration_id: null, client_id: clientId, incident_id: null, fingerprint: `fp-${n}`, title: `Alert ${n}`,
      severity, status: resolvedAt === null ? 'firing' : 'resolved', source: null, description: null,
      labels: JSON.stringify(service === null ? {} : { service }), annotations: '{}', payload: '{}', occurrences: 1, last_seen_at: createdAt,
      acknowledged_at: null, acknowledged_by_type: null, acknowledged_by_id: null, resolved_at: resolvedAt, resolved_by_type: null, resolved_by_id: null,
      suppression_id: null, created_at: createdAt, updated_at: resolvedAt ?? createdAt,
    };
  };
  const incident = (num: number, clientId: string, title: string, openedAt: number, resolvedAt: number | null) => ({
    id: `inc_report_${num}`, org_id: h.org.id, number: num, workflow_id: null, group_key: `g${num}`, title, severity: 'critical',
    status: resolvedAt === null ? 'triggered' : 'resolved', assignee_id: null, alert_count: 1, client_id: clientId,
    acknowledged_at: null, resolved_at: resolvedAt, created_at: openedAt, updated_at: resolvedAt ?? openedAt,
  });

  before(async () => {
    smtp = await startSmtpSink();
    h = await startHarness(kind, { SMTP_URL: smtp.url, SMTP_FROM: 'AlertFlow <alerts@alertflow.test>' });
    // A second instance on the same store, its own connections and its own sender.
    second = await createContainer(h.config, { log: pino({ level: 'silent' }), clock: h.clock, workers: false });
    await h.ok('PUT', '/api/v1/organization', { body: { timezone: 'Europe/Berlin' } });
    alpha = (await h.ok('POST', '/api/v1/clients', { body: { name: 'Alpha', slug: 'alpha', reportRecipients: ['ops@alpha.test', 'cto@alpha.test'] } }, 201)).data.id;
    beta = (await h.ok('POST', '/api/v1/clients', { body: { name: 'Beta', slug: 'beta' } }, 201)).data.id;
    const db = h.c.store.db;
    const dims = (clientId: string): AlertDims => ({ orgId: h.org.id, severity: 'high', clientId, integrationId: null, fingerprint: 'disk', title: HOSTILE, labels: {} });
    const created = (clientId: string, at: string): Fact => ({ kind: 'alert_created', alert: dims(clientId), at: t(at) });
    await db.transaction().execute((trx) => h.c.analytics.record(trx, [
      created(alpha, '2026-02-10T10:00:00Z'), created(alpha, '2026-02-20T10:00:00Z'),
      created(alpha, '2026-03-05T10:00:00Z'),
      created(alpha, '2026-03-28T23:30:00Z'), // 00:30 on the 29th in Berlin
      created(alpha, '2026-03-31T21:30:00Z'), // 23:30 on the 31st (UTC+2)
      created(alpha, '2026-03-31T22:30:00Z'), // 00:30 on April 1st: not March
      created(beta, '2026-03-06T10:00:00Z'),
      { kind: 'alert_repeated', alert: dims(alpha), at: t('2026-03-05T11:00:00Z'), times: 9 },
    ]));
    await db.insertInto('alerts').values([
      // checkout down 10:00–12:00 and 11:00–13:00: 3 hours together.
      alert(alpha, 'critical', 'checkout', t('2026-03-10T10:00:00Z'), t('2026-03-10T12:00:00Z')),
      alert(alpha, 'critical', 'checkout', t('2026-03-10T11:00:00Z'), t('2026-03-10T13:00:00Z')),
      // search down from 23:00 on Feb 28th (Berlin, before March) until 00:30 on March 1st: 30 minutes of March.
      alert(alpha, 'critical', 'search', t('2026-02-28T22:00:00Z'), t('2026-02-28T23:30:00Z')),
      alert(alpha, 'high', 'checkout', t('2026-03-12T10:00:00Z'), null),
      alert(beta, 'critical', 'checkout', t('2026-03-15T10:00:00Z'), t('2026-03-16T10:00:00Z')),
    ]).execute();
    await db.insertInto('incidents').values([
      incident(1, alpha, HOSTILE, t('2026-03-10T10:00:00Z'), t('2026-03-10T11:30:00Z')),
      incident(2, alpha, 'Search slow', t('2026-03-20T08:00:00Z'), null),
      incident(3, beta, 'Not Alpha', t('2026-03-21T08:00:00Z'), null),
    ]).execute();
    await db.transaction().execute(async (trx) => {
      for (const [id, ackMin] of [['inc_report_1', 4], ['inc_report_2', 10]] as const) {
        const openedAt = id === 'inc_report_1' ? t('2026-03-10T10:00:00Z') : t('2026-03-20T08:00:00Z');
        await h.c.analytics.incidentOpened(trx, { id, orgId: h.org.id, severity: 'critical', clientId: alpha, openedAt }, dims(alpha));
        await h.c.analytics.incidentReached(trx, h.org.id, id, 'ack', openedAt + ackMin * MIN);
      }
      await h.c.analytics.incidentReached(trx, h.org.id, 'inc_report_1', 'resolve', t('2026-03-10T11:30:00Z'));
    });
    // Patch night every Saturday 23:00–01:00 for Alpha; a window for one host of everyone is not Alpha's maintenance.
    await h.ok('POST', '/api/v1/suppression', { body: {
      name: 'Patch night', clientId: alpha, timezone: 'Europe/Berlin', recurrence: 'FREQ=WEEKLY;BYDAY=SA',
      startsAt: '2026-03-07T22:00:00.000Z', endsAt: '2026-03-08T00:00:00.000Z',
    } }, 201);
    await h.ok('POST', '/api/v1/suppression', { body: {
      name: 'One host', startsAt: '2026-03-02T10:00:00.000Z', endsAt: '2026-03-02T11:00:00.000Z', matchers: [{ field: 'labels.host', op: 'eq', value: 'db1' }],
    } }, 201);
    // 10:00 on April 1st in Berlin.
    h.clock.t = t('2026-04-01T08:00:00Z');
  });
  after(async () => {
    await second.close();
    await h.close();
    await smtp.close();
  });

  it('the month\'s figures, counted in the organization\'s zone, and only the client\'s', async () => {
    const r = (await h.ok('GET', `/api/v1/clients/${alpha}/report?period=2026-03`)).data;
    assert.equal(r.from, '2026-02-28T23:00:00.000Z');
    assert.equal(r.to, '2026-03-31T22:00:00.000Z');
    assert.equal(r.previousPeriod, '2026-02');
    assert.deepEqual([r.volume.alerts, r.volume.occurrences, r.volume.previousAlerts, r.volume.trendPercent], [3, 12, 2, 50]);
    assert.equal(r.volume.days.length, 31);
    assert.deepEqual([r.volume.days[4].alerts, r.volume.days[28].alerts, r.volume.days[30].alerts], [1, 1, 1]);
    assert.deepEqual(r.responseTimes.ack, { count: 2, median: 4 * MIN, p90: 10 * MIN });
    assert.deepEqual(r.responseTimes.resolve, { count: 1, median: 90 * MIN, p90: 90 * MIN });
    assert.equal(r.incidents.total, 2);
    assert.deepEqual(r.incidents.list.map((i: any) => [i.number, i.title, i.durationMs]), [[1, HOSTILE, 90 * MIN], [2, 'Search slow', null]]);
    assert.deepEqual(r.noisyAlerts.map((a: any) => a.counts.occurrences), [12]);
    assert.deepEqual(r.maintenance.map((m: any) => [m.name, m.startsAt]), [
      ['Patch night', '2026-03-07T22:00:00.000Z'], ['Patch night', '2026-03-14T22:00:00.000Z'],
      ['Patch night', '2026-03-21T22:00:00.000Z'], ['Patch night', '2026-03-28T22:00:00.000Z'],
    ]);
    const pct = (downMs: number) => Math.round((1 - downMs / MARCH_MS) * 100_000) / 1000;
    assert.deepEqual(r.availability, [
      { service: '*', downMs: 210 * MIN, percent: pct(210 * MIN) },
      { service: 'checkout', downMs: 180 * MIN, percent: pct(180 * MIN) },
      { service: 'search', downMs: 30 * MIN, percent: pct(30 * MIN) },
    ]);
    assert.equal(pct(210 * MIN), 99.529);
    // The default period is the month before the current one.
    assert.equal((await h.ok('GET', `/api/v1/clients/${alpha}/report`)).data.period, '2026-03');
    const other = await h.newOrg('Other');
    assert.equal((await h.req('GET', `/api/v1/clients/${alpha}/report`, { key: other.key })).status, 404);
    assert.equal((await h.req('GET', `/api/v1/clients/${alpha}/report?period=2026-13`)).status, 400);
  });

  it('the email of the 1st: two instances, one email per recipient, sender text escaped', async () => {
    const [a, b] = await Promise.all([h.c.reports.checkMonthly(), second.reports.checkMonthly()]);
    assert.equal(a + b, 2);
    assert.deepEqual(smtp.mails.map((m) => m.to.join()).sort(), ['cto@alpha.test', 'ops@alpha.test']);
    const mail = smtp.mails[0] as (typeof smtp.mails)[number];
    assert.equal(mail.headers.subject, 'Alpha: March 2026 report');
    assert.match(mail.text, /Alerts: 3 \(\+50 % against February 2026 \(2\)\)/);
    assert.match(mail.text, /All services: 99\.529 %/);
    assert.ok(mail.html.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;'), 'the title is text in the HTML');
    assert.ok(!mail.html.includes('<script>'), 'no markup from a sender');
    assert.match(mail.html, /http:\/\/alertflow\.test\/clients\/cli_[^"]+\/report\?period=2026-03/);
    // Later looks on either instance send nothing more; nor does a look after the 3rd of a month.
    assert.deepEqual(await Promise.all([h.c.reports.checkMonthly(), second.reports.checkMonthly()]), [0, 0]);
    h.clock.t = t('2026-05-04T08:00:00Z');
    assert.equal(await h.c.reports.checkMonthly(), 0);
    assert.equal(smtp.mails.length, 2);
  });
});
