import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { startHttpSink, startSmtpSink, type HttpSink, type SmtpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

const MIN = 60_000;

/**
 * Flap detection end to end (docs/paging.md, "Flapping alerts"): an alert that fires and resolves over and over
 * pages once; when it starts flapping, one notice goes to each target that was paged (an escalation's email, a
 * workflow's email and webhook), its later changes page nobody, the list filters it and its detail draws its
 * history; once stable it stops flapping with a second notice, and pages again.
 */
eachStore('flapping alerts', { together: true }, (kind) => {
  let h: Harness;
  let smtp: SmtpSink;
  let web: HttpSink;

  before(async () => {
    smtp = await startSmtpSink();
    web = await startHttpSink();
    h = await startHarness(kind, { SMTP_URL: smtp.url, OUTBOUND_ALLOW: '127.0.0.1/32', JOB_POLL_MS: '50', FLAP_SWEEP_SECONDS: '3600' });
  });
  after(async () => {
    await h.close();
    await smtp.close();
    await web.close();
  });

  it('pages once, sends one notice when it starts flapping and one when it is stable, and pages again after', async () => {
    const policy = (await h.ok('POST', '/api/v1/escalation-policies', { body: {
      name: 'Primary', steps: [{ delayMinutes: 5, targets: [{ type: 'channel', channel: 'email', target: { to: 'oncall@acme.test' } }] }],
    } }, 201)).data.id;
    await h.ok('POST', '/api/v1/workflows', { body: {
      name: 'Page on db alerts', trigger: 'alert.created', enabled: true,
      actions: [
        { type: 'create_incident', groupBy: ['fingerprint'], escalationPolicyId: policy },
        { type: 'email', to: ['lead@acme.test'] },
        { type: 'webhook', url: `${web.base}/hook`, secret: 'a-webhook-secret-of-some-length' },
      ],
    } }, 201);
    const flapping = { threshold: 3, windowSeconds: 600, stableSeconds: 300 };
    const integration = await h.integration(undefined, { name: 'Prometheus', flapping });
    assert.deepEqual((await h.ok('GET', `/api/v1/integrations/${integration.id}`)).data.flapping, flapping);
    const fire = () => h.ingestAlert(integration.path, { title: 'db1 down', source: 'probe', severity: 'critical' });
    const resolve = () => h.ingest(integration.path, { title: 'db1 down', source: 'probe', status: 'resolved' });
    const mails = (address: string, subject: RegExp) => smtp.mails.filter((m) => m.to.includes(address) && subject.test(m.headers.subject ?? ''));
    const notices = (event: string) => web.hits.filter((x) => JSON.parse(x.body.toString()).event === event);
    const pages = () => web.hits.filter((x) => JSON.parse(x.body.toString()).alert !== undefined);

    // Change 1: it fires and pages everyone once.
    const first = await fire();
    await eventually('the first pages', () => (mails('oncall@acme.test', /db1 down/).length && mails('lead@acme.test', /db1 down/).length && pages().length ? true : undefined), 60_000, 50);
    // Changes 2 and 3: resolved, then firing again: it flaps from the third change on, within 10 minutes.
    h.clock.advance(MIN);
    assert.equal((await resolve()).status, 200);
    h.clock.advance(MIN);
    const second = await fire();
    await eventually('the flapping notices', () => (mails('oncall@acme.test', /^Flapping: db1 down/).length && mails('lead@acme.test', /^Flapping: db1 down/).length && notices('alert.flapping').length ? true : undefined), 60_000, 50);
    assert.match(mails('lead@acme.test', /^Flapping/)[0]?.text ?? '', /changed between firing and resolved 3 times within 10 min/);
    // More changes while it flaps: none pages.
    for (let i = 0; i < 3; i++) {
      h.clock.advance(MIN);
      await resolve();
      h.clock.advance(MIN);
      await fire();
    }
    const runs = () => h.c.store.db.selectFrom('workflow_runs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    await eventually('every firing\'s workflow run', async () => (Number((await runs()).n) === 5 ? true : undefined), 60_000, 50);
    // Deliveries are queued in the run's transaction: once the runs are in and the queue is empty, nothing more is coming.
    await eventually('the deliveries', async () => (await h.c.store.db.selectFrom('notifications').select('id').where('status', 'in', ['pending', 'sending']).execute()).length === 0 ? true : undefined, 60_000, 50);
    assert.equal(mails('oncall@acme.test', /db1 down/).filter((m) => !/^Flapping/.test(m.headers.subject ?? '')).length, 1, 'the escalation paged once');
    assert.equal(mails('lead@acme.test', /db1 down/).filter((m) => !/^Flapping/.test(m.headers.subject ?? '')).length, 1, 'the workflow email paged once');
    assert.equal(pages().length, 1, 'the webhook paged once');
    assert.equal(mails('lead@acme.test', /^Flapping/).length, 1, 'one flapping notice per target');
    assert.equal(notices('alert.flapping').length, 1);
    assert.equal((await h.ok('GET', '/api/v1/incidents')).data.length, 1, 'no incident for the flapping alerts');

    // The API: the list filters it, the detail marks it and carries its history (5 firings, the last open).
    const listed = (await h.ok('GET', '/api/v1/alerts?flapping=true')).data;
    assert.equal(listed.length, 4, 'the alerts written while it flaps');
    assert.ok(listed.every((a: any) => a.flapping === true && a.id !== first));
    assert.ok(listed.some((a: any) => a.id === second));
    assert.equal((await h.ok('GET', '/api/v1/alerts?flapping=false')).data.length, 1);
    const open = listed.find((a: any) => a.status === 'firing');
    const detail = (await h.ok('GET', `/api/v1/alerts/${open.id}`)).data;
    assert.equal(detail.flapping, true);
    assert.equal(detail.history.length, 5);
    assert.equal(detail.history[0].alertId, open.id);
    assert.equal(detail.history[0].resolvedAt, null);
    assert.ok(detail.history.slice(1).every((x: any) => x.resolvedAt !== null));
    assert.equal((await h.req('GET', '/api/v1/alerts?flapping=maybe')).status, 400);
    // Analytics counts it once, under the fingerprint.
    const day = new Date(h.clock.now()).toISOString().slice(0, 10);
    const noisy = (await h.ok('GET', `/api/v1/analytics/noisy-alerts?from=${day}T00:00:00.000Z&to=${new Date(h.clock.now() + 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z&by=flaps`)).data.alerts;
    assert.equal(noisy[0]?.counts.flaps, 1);

    // Stable: not before 5 minutes without a change, then once, with its notice.
    h.clock.advance(4 * MIN);
    assert.equal(await h.c.alertWrites.settleFlaps(h.c.store.db, h.clock.now()), 0);
    h.clock.advance(MIN);
    assert.deepEqual(await Promise.all([h.c.alertWrites.settleFlaps(h.c.store.db, h.clock.now()), h.c.alertWrites.settleFlaps(h.c.store.db, h.clock.now())]).then((n) => n.sort()), [0, 1]);
    await eventually('the stable notices', () => (mails('oncall@acme.test', /^Stable again: db1 down/).length && mails('lead@acme.test', /^Stable again/).length && notices('alert.stable').length ? true : undefined), 60_000, 50);
    assert.match(mails('lead@acme.test', /^Stable again/)[0]?.text ?? '', /It is firing now/);
    assert.equal((await h.ok('GET', '/api/v1/alerts?flapping=true')).data.length, 0);
    assert.equal((await h.ok('GET', `/api/v1/alerts/${open.id}`)).data.flapping, false);

    // Its changes page again.
    h.clock.advance(MIN);
    await resolve();
    h.clock.advance(MIN);
    await fire();
    await eventually('a page again', () => (pages().length === 2 ? true : undefined), 60_000, 50);
    assert.equal(mails('lead@acme.test', /^Stable again/).length, 1);
  });
});
