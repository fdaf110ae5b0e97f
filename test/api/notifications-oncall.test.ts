import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { startSmtpSink, type SmtpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

const HOUR = 3_600_000;

/**
 * A workflow email action is an ordinary email-channel delivery per address: the schedule's on-call when the
 * workflow runs is one of them, and each is logged (and retried) on its own. A delivery an earlier version
 * queued for the whole action still reaches every recipient, in one email.
 */
eachStore('email toOnCall through a real schedule', { together: true }, (kind) => {
  let h: Harness;
  let smtp: SmtpSink;
  let scheduleId: string;
  let integ: { path: string };
  before(async () => {
    smtp = await startSmtpSink();
    h = await startHarness(kind, { SMTP_URL: smtp.url });
    const ann = await h.c.users.add(h.org.id, { email: 'ann@acme.test', name: 'Ann', role: 'member' });
    const bob = await h.c.users.add(h.org.id, { email: 'bob@acme.test', name: 'Bob', role: 'member' });
    const start = h.clock.now() - HOUR / 2;
    scheduleId = (await h.ok('POST', '/api/v1/schedules', {
      body: { name: 'Primary', timezone: 'UTC', layers: [{ name: 'Hourly', startsAt: new Date(start).toISOString(), rotation: 'hourly', users: [ann.id, bob.id] }] },
    }, 201)).data.id;
    integ = await h.integration();
  });
  after(async () => {
    await h.close();
    await smtp.close();
  });
  const mailsTo = (to: string, title: string) => smtp.mails.filter((m) => m.to.includes(to) && (m.headers.subject ?? '').includes(title));

  it('the on-call when the workflow runs gets the email beside the action\'s own recipients, one delivery each', async () => {
    await h.ok('POST', '/api/v1/workflows', {
      body: { name: 'Page on-call', trigger: 'alert.created', actions: [{ type: 'email', to: ['ops@acme.test'], toOnCall: scheduleId, subject: '[{{alert.severity}}] {{alert.title}}' }] },
    }, 201);
    const sent = await h.ingest(integ.path, { title: 'Replication lag', severity: 'critical', description: 'Replica db2 is 40 s behind.' });
    const alertId = sent.body.data.alerts[0].alertId as string;
    const toAnn = await eventually('the on-call\'s email', () => mailsTo('ann@acme.test', 'Replication lag')[0]);
    await eventually('the action\'s own recipient\'s email', () => mailsTo('ops@acme.test', 'Replication lag')[0]);
    assert.equal(toAnn.headers.subject, '[critical] Replication lag', 'the action\'s subject, rendered');
    assert.deepEqual(toAnn.to, ['ann@acme.test'], 'each recipient gets their own email');
    assert.ok(toAnn.text.includes('Replica db2 is 40 s behind.'));
    const log = await eventually('both deliveries sent', async () => {
      const entries = (await h.ok('GET', `/api/v1/alerts/${alertId}/notifications`)).data as Array<{ target: string; status: string; channel: string }>;
      return entries.length === 2 && entries.every((e) => e.status === 'sent') ? entries : undefined;
    });
    assert.deepEqual(log.map((e) => [e.channel, e.target]).sort(), [['email', 'ann@acme.test'], ['email', 'ops@acme.test']]);
  });

  it('a delivery queued by an earlier version for the whole action reaches all its recipients, the on-call resolved when it is sent', async () => {
    const workflowId = (await h.ok('GET', '/api/v1/workflows')).data[0].id as string;
    await h.ok('POST', `/api/v1/workflows/${workflowId}/disable`);
    const sent = await h.ingest(integ.path, { title: 'Old queued job', severity: 'high' });
    const alertId = sent.body.data.alerts[0].alertId as string;
    const { id } = await h.c.notifications.prepare(h.c.store.db, { orgId: h.org.id, alertId, incidentId: null, workflowId, actionIndex: 7, channel: 'email', target: 'ops@acme.test' });
    // Bob's hour has begun.
    h.clock.advance(HOUR);
    await h.c.runner.handleDelivery({ notificationId: id, action: { type: 'email', to: ['ops@acme.test'], toOnCall: scheduleId, subject: 'Queued before the upgrade' }, event: 'alert.created', orgId: h.org.id });
    const mail = smtp.mails.find((m) => m.headers.subject === 'Queued before the upgrade')!;
    assert.deepEqual(mail.to, ['ops@acme.test', 'bob@acme.test']);
    const row = await h.c.store.db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'sent');
  });
});
