import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CHANNEL_TYPES } from '../../src/modules/notifications/channels/registry.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson, asPerson, signIn } from '../support/sessions.ts';
import { startHttpSink, type HttpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

const MASK = '********';

/**
 * The channel registry end to end: the catalogue the dashboard's forms come from, a test page to a contact
 * method, and a workflow's `notify` action, all through the one delivery path and its log.
 */
eachStore('channel registry', { together: true }, (kind) => {
  let h: Harness;
  let web: HttpSink;
  before(async () => {
    web = await startHttpSink();
    h = await startHarness(kind, { OUTBOUND_ALLOW: '127.0.0.1/32', JOB_POLL_MS: '50' });
  });
  after(async () => {
    await h.close();
    await web.close();
  });

  it('GET /channels: every channel of the registry, its uses and its target\'s fields; readable by every member', async () => {
    await addPerson(h, h.org.id, 'mia@acme.test', 'a long enough password', 'member');
    const mia = await signIn(h, 'mia@acme.test', 'a long enough password');
    const r = await asPerson(h, mia, 'GET', '/api/v1/channels');
    assert.equal(r.status, 200, r.raw);
    const data = r.body.data as Array<{ type: string; uses: string[]; available: boolean; fields: Array<{ name: string; secret: boolean; url: boolean; required: boolean }> }>;
    assert.deepEqual(data.map((c) => c.type), CHANNEL_TYPES);
    const webhook = data.find((c) => c.type === 'webhook')!;
    assert.deepEqual(webhook.fields.map((f) => [f.name, f.required, f.secret, f.url]), [['url', true, false, true], ['secret', false, true, false]]);
    assert.ok(data.every((c) => c.uses.length > 0 && c.fields.length > 0));
    // Without SMTP_URL the email channel can still be chosen: it fails at send time, saying so (as before).
    assert.ok(data.every((c) => c.available || typeof (c as { unavailable?: string }).unavailable === 'string'));
  });

  it('"Send a test" to a contact method: a marked test page now, its outcome in words, logged as a test; another member\'s method is 404', async () => {
    await addPerson(h, h.org.id, 'leo@acme.test', 'a long enough password', 'member');
    const leo = await signIn(h, 'leo@acme.test', 'a long enough password');
    const path = `/contact-${kind}`;
    const method = await asPerson(h, leo, 'POST', '/api/v1/users/me/contact-methods', { body: { type: 'webhook', target: { url: `${web.base}${path}`, secret: 'a-signing-secret-0123456789' } } });
    assert.equal(method.status, 201, method.raw);
    const sent = await asPerson(h, leo, 'POST', `/api/v1/users/me/contact-methods/${method.body.data.id}/test`);
    assert.equal(sent.status, 200, sent.raw);
    assert.equal(sent.body.data.status, 'sent');
    assert.equal(sent.body.data.source, 'test');
    assert.equal(sent.body.data.alertId, null);
    const hit = web.hits.find((x) => x.path === path)!;
    const body = JSON.parse(hit.body.toString());
    assert.equal(body.event, 'channel.test');
    assert.match(body.notice.subject, /^\[TEST\] /);
    assert.ok(hit.headers['x-alertflow-signature'], 'signed with the method\'s secret');

    web.script.set(`${path}-down`, [410]);
    const broken = await asPerson(h, leo, 'POST', '/api/v1/users/me/contact-methods', { body: { type: 'webhook', target: { url: `${web.base}${path}-down` } } });
    const failed = await asPerson(h, leo, 'POST', `/api/v1/users/me/contact-methods/${broken.body.data.id}/test`);
    assert.equal(failed.body.data.status, 'failed');
    assert.match(failed.body.data.lastError, /^HTTP 410/);

    const mia = await signIn(h, 'mia@acme.test', 'a long enough password');
    const foreign = await asPerson(h, mia, 'POST', `/api/v1/users/me/contact-methods/${method.body.data.id}/test`);
    assert.equal(foreign.status, 404);
    assert.equal(web.hits.filter((x) => x.path === path).length, 1, 'nothing sent for the refused test');
  });

  it('"Send a test" to a channel target, as typed or as saved (a masked secret stands for the saved one); only escalation and workflow channels', async () => {
    const path = `/team-hook-${kind}`;
    const url = `${web.base}${path}`;
    const typed = await h.ok('POST', '/api/v1/channels/webhook/test', { body: { target: { url, secret: 'a-typed-secret-0123456789' } } });
    assert.equal(typed.data.status, 'sent');
    assert.equal(typed.data.source, 'test');
    await h.ok('POST', '/api/v1/escalation-policies', { body: { name: 'Team', steps: [{ delayMinutes: 1, targets: [{ type: 'channel', channel: 'webhook', target: { url, secret: 'the-saved-secret-0123456789' } }] }] } }, 201);
    const saved = await h.ok('POST', '/api/v1/channels/webhook/test', { body: { target: { url, secret: '********' } } });
    assert.equal(saved.data.status, 'sent');
    const hit = web.hits.filter((x) => x.path === path).at(-1)!;
    assert.equal(hit.headers['x-alertflow-signature'], `sha256=${createHmac('sha256', 'the-saved-secret-0123456789').update(hit.body).digest('hex')}`, 'signed with the saved secret');
    const unknown = await h.req('POST', '/api/v1/channels/webhook/test', { body: { target: { url: `${web.base}/elsewhere`, secret: '********' } } });
    assert.equal(unknown.status, 400, 'a mask without a saved target of that URL');
    assert.equal((await h.req('POST', '/api/v1/channels/webhook/test', { body: { target: { url: 'http://10.0.0.1/x' } } })).status, 400, 'the outbound policy');
    assert.equal((await h.req('POST', '/api/v1/channels/sms/test', { body: { target: { number: '+4915100000001' } } })).status, 404, 'a member\'s own channel: tested from their contact methods');
    const providers = await h.ok('GET', '/api/v1/channel-providers');
    assert.deepEqual(providers.data.twilio, { configured: false, accountSid: null, fromNumbers: [], smsWebhookUrl: 'http://alertflow.test/api/inbound/channels/sms/reply' });
  });

  it('a workflow notify action posts to any workflow channel, its secret masked, through the delivery log', async () => {
    const path = `/ntfy-${kind}`;
    const created = await h.ok('POST', '/api/v1/workflows', {
      body: { name: 'Push', trigger: 'alert.created', actions: [{ type: 'notify', channel: 'ntfy', target: { serverUrl: `${web.base}${path}`, topic: 'ops', token: 'tk_push_secret' } }] },
    }, 201);
    assert.deepEqual(created.data.actions[0].target, { serverUrl: `${web.base}${path}`, topic: 'ops', token: MASK });
    // Saved again as shown, the token stays.
    await h.ok('PATCH', `/api/v1/workflows/${created.data.id}`, { body: { actions: created.data.actions } });
    const integ = await h.integration();
    const alertId = await h.ingestAlert(integ.path, { title: 'Queue backlog', severity: 'high' });
    const hit = await eventually('the ntfy post', () => web.hits.find((x) => x.path === path));
    assert.equal(hit.headers.authorization, 'Bearer tk_push_secret');
    assert.equal(JSON.parse(hit.body.toString()).topic, 'ops');
    const log = await eventually('the delivery logged', async () => {
      const l = (await h.ok('GET', `/api/v1/alerts/${alertId}/notifications`)).data as Array<{ channel: string; status: string; target: string }>;
      return l[0]?.status === 'sent' ? l : undefined;
    });
    assert.deepEqual(log.map((e) => [e.channel, e.target]), [['ntfy', `${web.base}${path}/ops`]]);
    const bad = await h.req('POST', '/api/v1/workflows', { body: { name: 'x', trigger: 'alert.created', actions: [{ type: 'notify', channel: 'email', target: { to: 'a@b.test' } }] } });
    assert.equal(bad.status, 400, 'email is not a workflow channel (the email action is)');
    await h.ok('DELETE', `/api/v1/workflows/${created.data.id}`, {}, 204);
  });
});
