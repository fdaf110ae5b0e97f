import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AlertDims, Fact } from '../../src/modules/analytics/analytics-fns.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { startSmtpSink, type SmtpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

const t = (s: string): number => Date.parse(s);
const MIN = 60_000;

/**
 * The analytics endpoints on a seeded store, figures checked against hand-counted values. Europe/Berlin leaves
 * UTC+1 for UTC+2 at 2026-03-29 01:00Z: that local day is 23 hours long, and alerts at 23:30 and 00:30 local fall on
 * different days than their UTC dates say.
 */
eachStore('analytics API', { together: true }, (kind) => {
  let h: Harness;
  let smtp: SmtpSink;
  let org: Org;
  let other: Org;
  let clientA: string;
  let clientB: string;
  let integ: string;
  const dims = (o: Org, over: Partial<AlertDims> = {}): AlertDims => ({
    orgId: o.id, severity: 'high', clientId: null, integrationId: integ, fingerprint: 'fp-1', title: 'Disk full', labels: {}, ...over,
  });
  const range = 'from=2026-03-28T00:00:00.000Z&to=2026-03-31T00:00:00.000Z';

  before(async () => {
    smtp = await startSmtpSink();
    h = await startHarness(kind, { SMTP_URL: smtp.url, JOB_POLL_MS: '50' });
    org = h.org;
    other = await h.newOrg('Other');
    for (const o of [org, other]) await h.ok('PUT', '/api/v1/organization', { key: o.key, body: { timezone: 'Europe/Berlin' } });
    clientA = (await h.ok('POST', '/api/v1/clients', { body: { name: 'Alpha', slug: 'alpha' } }, 201)).data.id;
    clientB = (await h.ok('POST', '/api/v1/clients', { body: { name: 'Beta', slug: 'beta' } }, 201)).data.id;
    integ = (await h.integration()).id;
    const a = (fp: string, over: Partial<AlertDims> = {}) => dims(org, { fingerprint: fp, ...over });
    const facts: Fact[] = [
      // Saturday 23:30 Berlin (UTC+1) → Saturday.
      { kind: 'alert_created', alert: a('fp-1', { severity: 'critical', clientId: clientA, labels: { service: 'checkout' } }), at: t('2026-03-28T22:30:00Z') },
      // Sunday 00:30 Berlin, still UTC+1 → Sunday, though its UTC date is the 28th.
      { kind: 'alert_created', alert: a('fp-2', { clientId: clientA, labels: { service: 'checkout' } }), at: t('2026-03-28T23:30:00Z') },
      // Sunday 23:30 Berlin, now UTC+2 → Sunday.
      { kind: 'alert_created', alert: a('fp-3', { clientId: clientB, labels: { service: 'search' } }), at: t('2026-03-29T21:30:00Z') },
      // Monday 00:30 Berlin → Monday, though its UTC date is the 29th.
      { kind: 'alert_created', alert: a('fp-4', { clientId: clientB }), at: t('2026-03-29T22:30:00Z') },
      { kind: 'alert_repeated', alert: a('fp-2', { clientId: clientA, labels: { service: 'checkout' } }), at: t('2026-03-29T08:00:00Z'), times: 3 },
      // Resolved after 30 s (quick, counted on Sunday when it opened) and after 2 minutes (not quick).
      { kind: 'alert_resolved', alert: a('fp-2', { clientId: clientA, labels: { service: 'checkout' } }), openedAt: t('2026-03-28T23:30:00Z'), at: t('2026-03-28T23:30:30Z') },
      { kind: 'alert_resolved', alert: a('fp-3', { clientId: clientB, labels: { service: 'search' } }), openedAt: t('2026-03-29T21:30:00Z'), at: t('2026-03-29T21:32:00Z') },
      // Pages: Monday 10:00 in New York (working), Sunday noon in New York (weekend), Monday 03:00 Berlin for a Berlin member (night).
      { kind: 'page_sent', alert: a('fp-2', { clientId: clientA }), at: t('2026-03-30T14:00:00Z'), person: { userId: org.ownerId, zone: 'America/New_York' } },
      { kind: 'page_sent', alert: a('fp-2', { clientId: clientA }), at: t('2026-03-29T16:00:00Z'), person: { userId: org.ownerId, zone: 'America/New_York' } },
      { kind: 'page_sent', alert: a('fp-3', { clientId: clientB }), at: t('2026-03-30T01:00:00Z'), person: { userId: 'usr_gone', zone: 'Europe/Berlin' } },
      { kind: 'flap_started', alert: a('fp-3', { clientId: clientB }), at: t('2026-03-30T05:00:00Z') },
    ];
    // The other organization's identical activity, which no figure of the first may include.
    const theirs = facts.map((f) => ({ ...f, alert: { ...f.alert, orgId: other.id } }));
    await h.c.store.db.transaction().execute((trx) => h.c.analytics.record(trx, [...facts, ...theirs]));
    // Three incidents opened Sunday: acknowledged after 1, 2 and 10 minutes; one resolved after 30 minutes; paged after 20 s.
    for (const [i, ackMin] of [1, 2, 10].entries()) {
      const id = `inc_test_${i}`;
      const openedAt = t('2026-03-29T09:00:00Z') + i * MIN;
      await h.c.store.db.transaction().execute(async (trx) => {
        await h.c.analytics.incidentOpened(trx, { id, orgId: org.id, severity: i === 0 ? 'critical' : 'high', clientId: i === 0 ? clientA : clientB, openedAt },
          dims(org, { labels: { service: i === 0 ? 'checkout' : 'search' } }));
        await h.c.analytics.incidentReached(trx, org.id, id, 'ack', openedAt + ackMin * MIN);
        // A second acknowledgement (after a re-trigger) does not replace the first.
        await h.c.analytics.incidentReached(trx, org.id, id, 'ack', openedAt + 100 * MIN);
        if (i === 0) {
          await h.c.analytics.incidentReached(trx, org.id, id, 'resolve', openedAt + 30 * MIN);
          await h.c.analytics.incidentReached(trx, org.id, id, 'page', openedAt + 20_000);
        }
      });
    }
  });
  after(async () => {
    await h.close();
    await smtp.close();
  });

  it('counts alerts per day of the organization\'s zone across the DST change', async () => {
    const v = (await h.ok('GET', `/api/v1/analytics/volume?${range}&bucket=day`)).data;
    assert.equal(v.timezone, 'Europe/Berlin');
    // Local midnights: Saturday and Sunday at UTC+1, Monday and Tuesday at UTC+2; Sunday lasted 23 hours.
    assert.deepEqual(v.buckets, ['2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z', '2026-03-30T22:00:00.000Z']);
    assert.equal(v.to, '2026-03-31T22:00:00.000Z');
    assert.deepEqual(v.groups[0].series.map((c: any) => c.alerts), [1, 2, 1, 0]);
    assert.deepEqual(v.groups[0].series.map((c: any) => c.occurrences), [1, 5, 1, 0]);
    assert.deepEqual(v.groups[0].series.map((c: any) => c.quickResolves), [0, 1, 0, 0]);
    assert.deepEqual(v.groups[0].series.map((c: any) => c.pages), [0, 1, 2, 0]);
    assert.deepEqual(v.totals, { alerts: 4, occurrences: 7, quickResolves: 1, incidents: 3, pages: 3, flaps: 1 });
  });

  it('counts UTC hours with bucket=hour, and weeks from Monday', async () => {
    const hours = (await h.ok('GET', '/api/v1/analytics/volume?from=2026-03-28T22:00:00.000Z&to=2026-03-29T00:00:00.000Z&bucket=hour')).data;
    assert.deepEqual(hours.buckets, ['2026-03-28T22:00:00.000Z', '2026-03-28T23:00:00.000Z']);
    assert.deepEqual(hours.groups[0].series.map((c: any) => c.alerts), [1, 1]);
    const weeks = (await h.ok('GET', `/api/v1/analytics/volume?${range}&bucket=week`)).data;
    assert.deepEqual(weeks.buckets, ['2026-03-22T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    assert.deepEqual(weeks.groups[0].series.map((c: any) => c.alerts), [3, 1]);
  });

  it('groups by client, severity and a rolled-up label, with names; filters one client', async () => {
    const byClient = (await h.ok('GET', `/api/v1/analytics/volume?${range}&groupBy=client`)).data;
    const a = byClient.groups.find((g: any) => g.key === clientA);
    const b = byClient.groups.find((g: any) => g.key === clientB);
    assert.equal(a.name, 'Alpha');
    assert.deepEqual([a.totals.alerts, a.totals.occurrences, a.totals.pages], [2, 5, 2]);
    assert.deepEqual(b.series.map((c: any) => c.alerts), [0, 1, 1, 0]);
    const bySeverity = (await h.ok('GET', `/api/v1/analytics/volume?${range}&groupBy=severity`)).data;
    assert.deepEqual(bySeverity.groups.map((g: any) => [g.key, g.totals.alerts]).sort(), [['critical', 1], ['high', 3]]);
    const byService = (await h.ok('GET', `/api/v1/analytics/volume?${range}&groupBy=label:service`)).data;
    assert.deepEqual(byService.groups.map((g: any) => [g.key, g.totals.alerts]).sort(), [['', 1], ['checkout', 2], ['search', 1]]);
    const one = (await h.ok('GET', `/api/v1/analytics/volume?${range}&clientId=${clientA}`)).data;
    assert.deepEqual(one.groups[0].series.map((c: any) => c.alerts), [1, 1, 0, 0]);
    const refused = await h.req('GET', `/api/v1/analytics/volume?${range}&groupBy=label:host`);
    assert.equal(refused.status, 400);
    assert.match(refused.body.details[0].message, /not rolled up/);
  });

  it('MTTA, MTTR and time to first page: nearest-rank median and p90, first acknowledgement only', async () => {
    const r = (await h.ok('GET', `/api/v1/analytics/response-times?${range}`)).data;
    assert.deepEqual(r.overall.ack, { count: 3, median: 2 * MIN, p90: 10 * MIN });
    assert.deepEqual(r.overall.resolve, { count: 1, median: 30 * MIN, p90: 30 * MIN });
    assert.deepEqual(r.overall.page, { count: 1, median: 20_000, p90: 20_000 });
    assert.deepEqual(r.groups[0].series.map((d: any) => d.ack.count), [0, 3, 0, 0]);
    const byClient = (await h.ok('GET', `/api/v1/analytics/response-times?${range}&groupBy=client`)).data;
    const b = byClient.groups.find((g: any) => g.key === clientB);
    assert.deepEqual(b.overall.ack, { count: 2, median: 2 * MIN, p90: 10 * MIN });
    const byService = (await h.ok('GET', `/api/v1/analytics/response-times?${range}&groupBy=label:service`)).data;
    assert.deepEqual(byService.groups.find((g: any) => g.key === 'checkout').overall.ack.count, 1);
  });

  it('pages per person, working hours on their own clock', async () => {
    const p = (await h.ok('GET', `/api/v1/analytics/pages-per-person?${range}`)).data;
    assert.deepEqual(p.people, [
      { userId: org.ownerId, name: 'Owner', working: 1, offHours: 1, total: 2 },
      { userId: 'usr_gone', name: null, working: 0, offHours: 1, total: 1 },
    ]);
    const a = (await h.ok('GET', `/api/v1/analytics/pages-per-person?${range}&clientId=${clientB}`)).data;
    assert.deepEqual(a.people.map((x: any) => x.userId), ['usr_gone']);
  });

  it('top noisy alerts by occurrences, pages, quick resolutions and flaps', async () => {
    const noisy = async (by: string, extra = '') => (await h.ok('GET', `/api/v1/analytics/noisy-alerts?${range}&by=${by}${extra}`)).data.alerts;
    const byOcc = await noisy('occurrences');
    assert.deepEqual(byOcc.map((x: any) => [x.fingerprint, x.counts.occurrences]), [['fp-2', 4], ['fp-1', 1], ['fp-3', 1], ['fp-4', 1]]);
    assert.equal(byOcc[0].integrationName, 'test');
    assert.deepEqual((await noisy('pages')).map((x: any) => [x.fingerprint, x.counts.pages]), [['fp-2', 2], ['fp-3', 1]]);
    assert.deepEqual((await noisy('quickResolves')).map((x: any) => x.fingerprint), ['fp-2']);
    assert.deepEqual((await noisy('flaps')).map((x: any) => x.fingerprint), ['fp-3']);
    assert.deepEqual((await noisy('occurrences', `&clientId=${clientB}&limit=1`)).map((x: any) => x.fingerprint), ['fp-3']);
  });

  it('one fingerprint in two integrations: two noisy alerts, each with its own counts', async () => {
    // Far from the other tests' range: these facts count in no other figure.
    const second = (await h.integration(org, { name: 'second' })).id;
    const same = (integrationId: string) => dims(org, { fingerprint: 'fp-same', integrationId, title: `Same in ${integrationId === integ ? 'test' : 'second'}` });
    await h.c.store.db.transaction().execute((trx) => h.c.analytics.record(trx, [
      { kind: 'alert_created', alert: same(integ), at: t('2025-06-10T08:00:00Z') },
      { kind: 'alert_repeated', alert: same(integ), at: t('2025-06-10T08:05:00Z'), times: 4 },
      { kind: 'alert_created', alert: same(second), at: t('2025-06-10T09:00:00Z') },
      { kind: 'page_sent', alert: same(second), at: t('2025-06-10T09:01:00Z'), person: null },
      { kind: 'page_sent', alert: same(second), at: t('2025-06-10T09:02:00Z'), person: null },
    ]));
    const noisy = async (by: string) => ((await h.ok('GET', `/api/v1/analytics/noisy-alerts?from=2025-06-09T00:00:00.000Z&to=2025-06-12T00:00:00.000Z&by=${by}`)).data.alerts as any[])
      .map((x) => [x.integrationName, x.fingerprint, x.counts.occurrences, x.counts.pages]);
    assert.deepEqual(await noisy('occurrences'), [['test', 'fp-same', 5, 0], ['second', 'fp-same', 1, 2]]);
    assert.deepEqual(await noisy('pages'), [['second', 'fp-same', 1, 2]], 'ranked by pages: only the integration whose alert paged, with its own occurrences');
  });

  it('never counts another organization\'s data, nor shows its clients', async () => {
    const theirs = (await h.ok('GET', `/api/v1/analytics/volume?${range}&groupBy=client`, { key: other.key })).data;
    // Their facts named our clients' ids; their figures are their own, and our names stay ours.
    assert.equal(theirs.totals.alerts, 4);
    assert.ok(theirs.groups.every((g: any) => g.name === null));
    const ours = (await h.ok('GET', `/api/v1/analytics/response-times?${range}`, { key: other.key })).data;
    assert.equal(ours.overall.ack.count, 0);
    const fresh = await h.newOrg('Fresh');
    const none = (await h.ok('GET', `/api/v1/analytics/volume?${range}`, { key: fresh.key })).data;
    assert.deepEqual(none.totals, { alerts: 0, occurrences: 0, quickResolves: 0, incidents: 0, pages: 0, flaps: 0 });
  });

  it('the client board: one tile per client, burning first, maintenance and the last 7 days', async () => {
    const o = await h.newOrg('MSP');
    const as = { key: o.key };
    const client = async (name: string) => (await h.ok('POST', '/api/v1/clients', { ...as, body: { name, slug: name.toLowerCase() } }, 201)).data.id as string;
    const [calm, burning, resting] = [await client('Calm'), await client('Burning'), await client('Resting')];
    const path = (await h.integration(o)).path;
    const send = (title: string, severity: string, slug: string) => h.ingestAlert(path, { title, severity, labels: { client: slug } });
    await send('Backup late', 'high', 'calm');
    await send('Checkout down', 'critical', 'burning');
    await send('Payments slow', 'high', 'burning');
    await send('Old news', 'critical', 'resting');
    const resolvedId = await send('Gone again', 'critical', 'burning');
    await h.ok('POST', `/api/v1/alerts/${resolvedId}/resolve`, as);
    // Resting is in maintenance: a window scoped to it is in force now.
    await h.ok('POST', '/api/v1/suppression', { ...as, body: {
      name: 'Patch night', startsAt: new Date(h.clock.now() - 60_000).toISOString(), endsAt: new Date(h.clock.now() + 3_600_000).toISOString(), clientId: resting,
    } }, 201);
    // Two alerts of Burning counted two days ago and one more today (the harness clock: Saturday 2026-11-21, UTC), besides
    // the three ingested today.
    const dimsOf = (at: number) => ({ kind: 'alert_created' as const, alert: { ...dims(o, { clientId: burning }) }, at });
    await h.c.store.db.transaction().execute((trx) => h.c.analytics.record(trx, [dimsOf(h.clock.now() - 2 * 86_400_000), dimsOf(h.clock.now() - 2 * 86_400_000), dimsOf(h.clock.now())]));
    const b = (await h.ok('GET', '/api/v1/analytics/client-board', as)).data;
    assert.deepEqual(b.clients.map((c: any) => c.name), ['Burning', 'Resting', 'Calm']);
    const [burn, rest, calmTile] = b.clients;
    assert.deepEqual([burn.openCritical, burn.openHigh, burn.openIncidents], [1, 1, 0]);
    assert.equal(burn.lastAlert.title, 'Gone again');
    assert.deepEqual(burn.trend, [0, 0, 0, 0, 2, 0, 4]);
    assert.equal(burn.maintenance, null);
    assert.equal(rest.maintenance.name, 'Patch night');
    assert.equal(rest.openCritical, 1);
    assert.ok(rest.attention < burn.attention);
    assert.deepEqual([calmTile.openCritical, calmTile.openHigh], [0, 1]);
    assert.equal(calm, calmTile.clientId);
    // Another organization's board has none of these.
    assert.deepEqual((await h.ok('GET', '/api/v1/analytics/client-board', { key: other.key })).data.clients, []);
  });

  it('counts what ingest, workflows, pages and answers write, as they write it', async () => {
    const o = await h.newOrg('Live');
    const as = { key: o.key };
    const policy = (await h.ok('POST', '/api/v1/escalation-policies', { ...as, body: { name: 'Owner', steps: [{ delayMinutes: 5, targets: [{ type: 'user', id: o.ownerId }] }] } }, 201)).data.id;
    await h.ok('POST', '/api/v1/workflows', { ...as, body: {
      name: 'Page on A', trigger: 'alert.created', enabled: true, conditions: { field: 'title', op: 'eq', value: 'A' },
      actions: [{ type: 'create_incident', groupBy: [], escalationPolicyId: policy }],
    } }, 201);
    const path = (await h.integration(o)).path;
    const t0 = h.clock.now();
    const send = (title: string, status = 'firing') => h.ingest(path, { title, severity: 'high', status, labels: { service: 'api' } });
    for (let i = 0; i < 3; i++) assert.equal((await send('A')).status, 200);
    await send('B');
    await send('C');
    h.clock.advance(30_000);
    await send('B', 'resolved');
    h.clock.advance(90_000);
    await send('C', 'resolved');
    const incident = await eventually('the incident', async () => (await h.ok('GET', '/api/v1/incidents', as)).data[0]);
    await eventually('the page', () => (smtp.mails.some((m) => m.to.includes('owner@acme.test') && /\bA\b/.test(m.headers.subject ?? '')) ? true : undefined));
    await eventually('the page counted', async () => ((await h.ok('GET', `/api/v1/analytics/volume?from=${new Date(t0 - 3_600_000).toISOString()}`, as)).data.totals.pages === 1 ? true : undefined));
    h.clock.advance(60_000);
    await h.ok('PUT', `/api/v1/incidents/${incident.id}`, { ...as, body: { status: 'acknowledged' } });
    const range = `from=${new Date(t0 - 3_600_000).toISOString()}&to=${new Date(t0 + 3_600_000).toISOString()}`;
    const v = (await h.ok('GET', `/api/v1/analytics/volume?${range}&bucket=hour&groupBy=label:service`, as)).data;
    assert.deepEqual(v.totals, { alerts: 3, occurrences: 5, quickResolves: 1, incidents: 1, pages: 1, flaps: 0 });
    assert.deepEqual(v.groups.map((g: any) => g.key), ['api']);
    const noisy = (await h.ok('GET', `/api/v1/analytics/noisy-alerts?${range}`, as)).data.alerts;
    // Ties rank by fingerprint (a hash of title and source here).
    assert.deepEqual(noisy.map((a: any) => [a.title, a.counts.occurrences, a.counts.pages]).sort(), [['A', 3, 1], ['B', 1, 0], ['C', 1, 0]]);
    assert.equal(noisy[0].title, 'A');
    const people = (await h.ok('GET', `/api/v1/analytics/pages-per-person?${range}`, as)).data.people;
    assert.deepEqual(people.map((p: any) => [p.userId, p.total]), [[o.ownerId, 1]]);
    const times = (await h.ok('GET', `/api/v1/analytics/response-times?${range}`, as)).data.overall;
    assert.equal(times.ack.count, 1);
    assert.ok((times.ack.median as number) >= 60_000, 'acknowledged a minute after the page at least');
    assert.equal(times.page.count, 1);
  });

  it('refuses a reversed or too long range, and an unknown zone', async () => {
    assert.equal((await h.req('GET', '/api/v1/analytics/volume?from=2026-03-30T00:00:00.000Z&to=2026-03-29T00:00:00.000Z')).status, 400);
    assert.equal((await h.req('GET', '/api/v1/analytics/volume?from=2026-01-01T00:00:00.000Z&to=2026-03-01T00:00:00.000Z&bucket=hour')).status, 400);
    const bad = await h.req('PUT', '/api/v1/organization', { body: { timezone: 'Mars/Olympus' } });
    assert.equal(bad.status, 400);
    assert.equal((await h.ok('GET', '/api/v1/organization')).data.timezone, 'Europe/Berlin');
  });
});
