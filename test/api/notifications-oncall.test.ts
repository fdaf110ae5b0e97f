import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { startSmtpSink, type SmtpSink } from '../support/sinks.ts';
import { STORE_KINDS } from '../support/stores.ts';

const HOUR = 3_600_000;

for (const kind of STORE_KINDS) {
  describe(`email toOnCall through a real schedule (${kind})`, () => {
    let h: Harness;
    let smtp: SmtpSink;
    before(async () => {
      smtp = await startSmtpSink();
      h = await startHarness(kind, { SMTP_URL: smtp.url });
    });
    after(async () => {
      await h.close();
      await smtp.close();
    });

    it('the schedule\'s on-call at send time gets the email, beside the action\'s own recipients', async () => {
      const ann = await h.c.users.add(h.org.id, { email: 'ann@acme.test', name: 'Ann', role: 'member' });
      const bob = await h.c.users.add(h.org.id, { email: 'bob@acme.test', name: 'Bob', role: 'member' });
      const start = h.clock.now() - HOUR / 2;
      const schedule = await h.req('POST', '/api/v1/schedules', {
        body: { name: 'Primary', timezone: 'UTC', layers: [{ name: 'Hourly', startsAt: new Date(start).toISOString(), rotation: 'hourly', users: [ann.id, bob.id] }] },
      });
      assert.equal(schedule.status, 201, schedule.raw);
      const scheduleId = schedule.body.data.id as string;

      const integ = await h.integration();
      const sent = await h.ingest(integ.path, { title: 'Replication lag', severity: 'critical', description: 'Replica db2 is 40 s behind.' });
      const alertId = sent.body.data.alerts[0].alertId as string;
      const now = h.clock.now();
      await h.c.store.db.insertInto('workflows').values({
        id: 'wf_oncall', org_id: h.org.id, name: 'Page on-call', description: null, enabled: 0, trigger: 'alert.created',
        conditions: null, actions: '[]', created_at: now, updated_at: now,
      }).execute();
      const { id } = await h.c.notifications.prepare(h.c.store.db, {
        orgId: h.org.id, alertId, incidentId: null, workflowId: 'wf_oncall', actionIndex: 0, channel: 'email', target: 'ops@acme.test',
      });

      // Ann's shift when the workflow ran; Bob's (the next hour) when the email goes out.
      h.clock.advance(HOUR);
      const r = await h.c.notifications.deliver(id, { type: 'email', to: ['ops@acme.test'], toOnCall: scheduleId, subject: '[critical] Replication lag' });
      assert.equal(r.status, 'sent', r.lastError ?? '');
      const mail = smtp.mails.at(-1)!;
      assert.deepEqual(mail.to, ['ops@acme.test', 'bob@acme.test']);
      assert.ok(mail.text.includes('Replica db2 is 40 s behind.'));
      assert.equal(r.target, 'ops@acme.test, bob@acme.test');
    });
  });
}
