import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson } from '../support/sessions.ts';
import { startSmtpSink, type SmtpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

/**
 * Handoff notices: with the schedule's setting on, the incoming on-call person is emailed when their shift
 * starts, once, however many looks (or instances) see the shift start; without it, nobody is.
 */
eachStore('handoff notices', { together: true }, (kind) => {
  let h: Harness;
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
    h = await startHarness(kind, { SMTP_URL: smtp.url, HANDOFF_CHECK_SECONDS: '1' });
  });
  after(async () => {
    await h.close();
    await smtp.close();
  });
  const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('is off by default, set on create or update, and refused when not a boolean', async () => {
    const created = await h.ok('POST', '/api/v1/schedules', { body: { name: 'Plain' } }, 201);
    assert.equal(created.data.handoffNotices, false);
    const on = await h.ok('PATCH', `/api/v1/schedules/${created.data.id}`, { body: { handoffNotices: true } });
    assert.equal(on.data.handoffNotices, true);
    assert.equal((await h.ok('GET', `/api/v1/schedules/${created.data.id}`)).data.handoffNotices, true);
    const bad = await h.req('PATCH', `/api/v1/schedules/${created.data.id}`, { body: { handoffNotices: 'yes' } });
    assert.equal(bad.status, 400, bad.raw);
    assert.equal(bad.body.details[0].path, '/handoffNotices');
    assert.equal((await h.ok('GET', `/api/v1/schedules/${created.data.id}`)).data.handoffNotices, true, 'bad input changes nothing');
    await h.ok('DELETE', `/api/v1/schedules/${created.data.id}`, {}, 204);
  });

  it('emails the incoming person once when their shift starts; a schedule without the setting emails nobody', async () => {
    const mia = `mia-${kind}@acme.test`;
    const leo = `leo-${kind}@acme.test`;
    const miaId = await addPerson(h, h.org.id, mia, 'a long enough password', 'member');
    const leoId = await addPerson(h, h.org.id, leo, 'a long enough password', 'member');
    // Both shifts start 2 s from the (test) clock's now.
    const startsAt = new Date(h.clock.now() + 2_000).toISOString();
    const layer = (userId: string) => [{ name: 'Day', startsAt, rotation: 'daily', users: [userId] }];
    await h.ok('POST', '/api/v1/schedules', { body: { name: 'Primary', timezone: 'UTC', handoffNotices: true, layers: layer(miaId) } }, 201);
    await h.ok('POST', '/api/v1/schedules', { body: { name: 'Quiet', layers: layer(leoId) } }, 201);

    await sleep(1_500);
    assert.equal(mailsTo(mia).length, 0, 'not before the shift starts');
    h.clock.advance(3_000);
    const mail = await eventually('the handoff notice', () => mailsTo(mia)[0], 20_000);
    assert.equal(mail.headers.subject, 'You are on call for Primary');
    assert.match(mail.text, /You are on call for Primary from 21 Nov 2026, 10:00 until further notice \(UTC\)\./);

    // More looks, two at once as two instances would make them: still one notice.
    await Promise.all([h.c.schedules.checkHandoffs(), h.c.schedules.checkHandoffs()]);
    await sleep(2_500);
    assert.equal(mailsTo(mia).length, 1, 'once');
    assert.equal(mailsTo(leo).length, 0, 'no notice without the setting');
    // An ordinary notification of the delivery log: the email channel, to the member, sent.
    const rows = await h.c.store.db.selectFrom('notifications').selectAll().where('org_id', '=', h.org.id).where('source', '=', 'handoff').execute();
    const schedules = (await h.ok('GET', '/api/v1/schedules')).data as Array<{ id: string; name: string }>;
    const primary = schedules.find((x) => x.name === 'Primary')!.id;
    assert.deepEqual(rows.map((r) => [r.idempotency_key, r.channel, r.target, r.recipient_id, r.alert_id, r.status]), [[`handoff:${primary}:${Date.parse(startsAt)}:${miaId}`, 'email', mia, miaId, null, 'sent']]);
  });
});
