import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { addPerson, asPerson, signIn } from '../support/sessions.ts';
import { startHttpSink, startSmtpSink, type HttpSink, type SmtpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

/**
 * A member paged through a real escalation by their own contact methods and rules ("ntfy at once, email
 * after 1 minute"): the ntfy receiver gets the page now, the SMTP server the email after the delay, and an
 * acknowledgement in between means the email is never sent.
 */

// A policy "minute" is 1.5 s here: long enough to acknowledge between the push and the email.
const MINUTE_MS = 1500;
const PASSWORD = 'correct horse battery staple';

eachStore('a member paged by their contact methods and rules', { together: true }, (kind) => {
  let h: Harness;
  let web: HttpSink;
  let smtp: SmtpSink;
  before(async () => {
    [web, smtp] = await Promise.all([startHttpSink(), startSmtpSink()]);
    h = await startHarness(kind, { OUTBOUND_ALLOW: '127.0.0.1/32', JOB_POLL_MS: '50', ESCALATION_MINUTE_MS: String(MINUTE_MS), SMTP_URL: smtp.url });
  });
  after(async () => {
    await h.close();
    await Promise.all([web.close(), smtp.close()]);
  });

  /** An org whose member `who` has an ntfy and an email method, ntfy at 0 and email after 1 minute, and a policy paging them. */
  async function memberWithRules(who: string) {
    const org: Org = await h.newOrg();
    const email = `${who}@acme.test`;
    const userId = await addPerson(h, org.id, email, PASSWORD, 'member');
    const session = await signIn(h, email, PASSWORD);
    const add = async (body: unknown) => {
      const r = await asPerson(h, session, 'POST', '/api/v1/users/me/contact-methods', { body });
      assert.equal(r.status, 201, r.raw);
      return r.body.data.id as string;
    };
    const ntfy = await add({ type: 'ntfy', target: { serverUrl: `${web.base}/ntfy-${who}`, topic: `${who}-pages`, token: 'tk_phone' } });
    const mail = await add({ type: 'email', target: { to: `${who}@pager.test` } });
    const rules = await asPerson(h, session, 'PUT', '/api/v1/users/me/notification-rules', { body: { rules: [{ contactMethodId: ntfy, afterMinutes: 0 }, { contactMethodId: mail, afterMinutes: 1 }] } });
    assert.equal(rules.status, 200, rules.raw);
    const policy = await h.ok('POST', '/api/v1/escalation-policies', { key: org.key, body: { name: 'Me', steps: [{ delayMinutes: 60, targets: [{ type: 'user', id: userId }] }] } }, 201);
    await h.ok('POST', '/api/v1/workflows', { key: org.key, body: { name: 'Page', trigger: 'alert.created', actions: [{ type: 'create_incident', escalationPolicyId: policy.data.id }] } }, 201);
    const integ = await h.integration(org);
    const alertId = await h.ingestAlert(integ.path, { title: `Disk full for ${who}`, severity: 'critical' });
    const incidentId = await eventually('the incident', async () => (await h.ok('GET', `/api/v1/alerts/${alertId}`, { key: org.key })).data.incidentId ?? undefined) as string;
    return { org, userId, alertId, incidentId, pushes: () => web.hits.filter((x) => x.path === `/ntfy-${who}`), mails: () => smtp.mails.filter((m) => m.to.includes(`${who}@pager.test`)) };
  }
  const log = async (org: Org, alertId: string) => (await h.ok('GET', `/api/v1/alerts/${alertId}/notifications?limit=100`, { key: org.key })).data as Array<Record<string, any>>;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('pushes to ntfy at once and emails after the rule\'s minute; both are in the delivery logs as the escalation\'s', async () => {
    const m = await memberWithRules(`mia-${kind}`);
    const pushedAt = await eventually('the ntfy push', () => (m.pushes().length > 0 ? Date.now() : undefined));
    const push = JSON.parse(m.pushes()[0]!.body.toString());
    assert.equal(push.topic, `mia-${kind}-pages`);
    assert.match(push.title, /Disk full for mia/);
    assert.equal(m.pushes()[0]!.headers.authorization, 'Bearer tk_phone');
    assert.equal(m.mails().length, 0, 'the email waits for its minute');

    const mail = await eventually('the email after a minute', () => m.mails()[0], 30_000);
    assert.ok(Date.now() - pushedAt >= MINUTE_MS - 500, 'not before the rule\'s delay');
    assert.match(mail.text, /Acknowledge: http:\/\/alertflow\.test\/links\//);
    await sleep(MINUTE_MS);
    assert.deepEqual([m.pushes().length, m.mails().length], [1, 1], 'each once');

    const sent = await eventually('both sent', async () => {
      const l = await log(m.org, m.alertId);
      return l.length === 2 && l.every((e) => e.status === 'sent') ? l : undefined;
    });
    assert.deepEqual(sent.map((e) => `${e.source}:${e.step}:${e.channel}:${e.recipientId}`).sort(), [`escalation:1:email:${m.userId}`, `escalation:1:ntfy:${m.userId}`]);
    const timeline = (await h.ok('GET', `/api/v1/incidents/${m.incidentId}`, { key: m.org.key })).data.timeline as Array<Record<string, any>>;
    const delivered = timeline.filter((t) => t.type === 'notification_sent');
    assert.deepEqual(delivered.map((t) => `${t.data.source}:${t.data.channel}`).sort(), ['escalation:email', 'escalation:ntfy'], 'the incident\'s log shows both');
    const step = timeline.find((t) => t.type === 'escalation_step');
    assert.deepEqual(step!.data.paged[0].via.map((v: string) => v.split(' ')[0]), ['ntfy', 'email'], 'the timeline says how');
    assert.equal(step!.data.paged[0].via[1], 'email after 1 min');
  });

  it('an incident acknowledged before the rule\'s minute: the email is never sent', async () => {
    const m = await memberWithRules(`leo-${kind}`);
    await eventually('the ntfy push', () => m.pushes()[0]);
    await h.ok('PATCH', `/api/v1/incidents/${m.incidentId}`, { key: m.org.key, body: { status: 'acknowledged' } });
    await sleep(2 * MINUTE_MS);
    assert.equal(m.mails().length, 0, 'no email after the acknowledgement');
    assert.equal(m.pushes().length, 1);
    const l = await log(m.org, m.alertId);
    assert.deepEqual(l.map((e) => `${e.source}:${e.channel}`), ['escalation:ntfy']);
  });
});
