import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson } from '../support/sessions.ts';
import { startSlackSim, type SlackMessage, type SlackSim } from '../support/slack-sim.ts';
import { eachStore } from '../support/stores.ts';

/**
 * The Slack app of an organization (Slack's simulator): set up with its bot token (checked with auth.test) and
 * signing secret, masked; a page posted with Acknowledge and Resolve buttons; a press acts as the member with the
 * presser's email, once; unmatched presses get an ephemeral refusal; forged, expired, replayed and another
 * organization's presses change nothing; and the message follows the incident whatever route changed it.
 */

const MASK = '********';

eachStore('the Slack app', { together: true }, (kind) => {
  let h: Harness;
  let slack: SlackSim;
  let interactivity: string;
  let miaId: string;
  before(async () => {
    slack = await startSlackSim({ publicUrl: 'http://alertflow.test', now: () => h.clock.now() });
    h = await startHarness(kind, { JOB_POLL_MS: '50', ESCALATION_MINUTE_MS: '60000', SLACK_API_URL: slack.url });
    slack.appUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
    miaId = await addPerson(h, h.org.id, 'mia@acme.test', 'correct horse battery staple', 'member');
    slack.users.set('U0MIA0001', 'Mia@Acme.test');
    slack.users.set('U0EVE0001', 'eve@elsewhere.test');
  });
  after(async () => {
    await h.close();
    await slack.close();
  });

  const pageTo = async (title: string) => {
    const policy = await h.ok('POST', '/api/v1/escalation-policies', { body: { name: title, steps: [{ delayMinutes: 1, targets: [{ type: 'channel', channel: 'slack_app', target: { channel: 'C0ALERTS01' } }] }] } }, 201);
    await h.ok('POST', '/api/v1/workflows', { body: { name: title, trigger: 'alert.created', conditions: { field: 'title', op: 'eq', value: title }, actions: [{ type: 'create_incident', groupBy: ['title'], escalationPolicyId: policy.data.id }] } }, 201);
    const alertId = await h.ingestAlert((await h.integration()).path, { title, severity: 'critical' });
    const message = await eventually('the Slack message', () => slack.messages.find((m) => m.text.includes(title)));
    const incidentId = (await h.ok('GET', `/api/v1/alerts/${alertId}`)).data.incidentId as string;
    return { message, incidentId, alertId };
  };
  const status = async (id: string) => (await h.ok('GET', `/api/v1/incidents/${id}`)).data.status as string;
  const updated = (m: SlackMessage, n: number) => eventually(`message update ${n}`, () => (m.updates >= n ? m : undefined));

  it('is set up with a token Slack accepts; secrets are never shown and kept when sent back masked', async () => {
    assert.equal((await h.ok('GET', '/api/v1/channels')).data.find((c: { type: string }) => c.type === 'slack_app').available, false, 'not set up yet');
    const refused = await h.req('PUT', '/api/v1/channel-settings/slack_app', { body: { botToken: 'xoxb-not-the-right-token-0000', signingSecret: slack.signingSecret } });
    assert.equal(refused.status, 400, refused.raw);
    assert.match(refused.body.details[0].message, /Slack answered invalid_auth/);
    assert.deepEqual(slack.refusals.splice(0), ['/auth.test: invalid_auth']);
    const saved = await h.ok('PUT', '/api/v1/channel-settings/slack_app', { body: { botToken: slack.botToken, signingSecret: slack.signingSecret } });
    assert.deepEqual(saved.data.settings, { botToken: MASK, signingSecret: MASK });
    interactivity = saved.data.urls.interactivity;
    assert.equal(interactivity, `http://alertflow.test/api/inbound/channels/slack_app/${h.org.id}/actions`);
    await h.ok('PUT', '/api/v1/channel-settings/slack_app', { body: { botToken: MASK, signingSecret: MASK } });
    const listed = (await h.ok('GET', '/api/v1/channel-settings')).data.find((s: { channel: string }) => s.channel === 'slack_app');
    assert.equal(listed.configured, true);
    assert.ok(!JSON.stringify(listed).includes(slack.botToken) && !JSON.stringify(listed).includes(slack.signingSecret));
    assert.equal((await h.ok('GET', '/api/v1/channels')).data.find((c: { type: string }) => c.type === 'slack_app').available, true);
  });

  it('a press acts once as the member with the presser\'s email; the message follows the incident by any route', async () => {
    const { message, incidentId } = await pageTo('Checkout down');
    assert.deepEqual(slack.buttons(message), ['acknowledge', 'resolve', 'open']);

    // Someone Slack knows but no member of ours: told so, alone; nothing changes.
    const stranger = await slack.press(message, 'acknowledge', 'U0EVE0001', { interactivityUrl: interactivity });
    assert.equal(stranger.status, 200);
    assert.match(slack.ephemeral.at(-1)!.text, /No member of this AlertFlow organization has the email eve@elsewhere\.test: nothing changed\./);
    assert.equal(slack.ephemeral.at(-1)!.user, 'U0EVE0001');
    // Forged and expired signatures.
    assert.equal((await slack.press(message, 'acknowledge', 'U0MIA0001', { interactivityUrl: interactivity, forge: true })).status, 401);
    assert.equal((await slack.press(message, 'acknowledge', 'U0MIA0001', { interactivityUrl: interactivity, ageSeconds: 301 })).status, 401);
    assert.equal(await status(incidentId), 'triggered');

    const pressed = await slack.press(message, 'acknowledge', 'U0MIA0001', { interactivityUrl: interactivity });
    assert.equal(pressed.status, 200, pressed.body);
    assert.equal(await status(incidentId), 'acknowledged');
    const detail = (await h.ok('GET', `/api/v1/incidents/${incidentId}`)).data;
    const change = detail.timeline.find((t: { type: string }) => t.type === 'status_changed');
    assert.deepEqual([change.actor.id, change.data.via], [miaId, 'Slack button pressed by Mia@Acme.test']);
    await updated(message, 1);
    assert.deepEqual(slack.buttons(message), ['resolve', 'open']);
    assert.match(message.text, /^\[ACKNOWLEDGED\] \[CRITICAL\] #\d+ Checkout down$/);

    // The very same request again (a replay): nothing more.
    const replay = await slack.press(message, 'acknowledge', 'U0MIA0001', { interactivityUrl: interactivity, raw: pressed.request });
    assert.equal(replay.status, 200);
    const alertId = detail.alerts[0].id as string;
    const log = (await h.ok('GET', `/api/v1/alerts/${alertId}/notifications`)).data as Array<{ answers: unknown[] }>;
    assert.equal(log[0]!.answers.length, 1, 'one answer logged');

    // Resolved through the API: the message shows it, its buttons gone.
    await h.ok('PATCH', `/api/v1/incidents/${incidentId}`, { body: { status: 'resolved' } });
    await updated(message, 2);
    assert.deepEqual(slack.buttons(message), ['open']);
    assert.match(message.text, /^\[RESOLVED\]/);
    assert.deepEqual(slack.refusals, []);
  });

  it('another organization\'s app URL cannot answer this organization\'s page', async () => {
    const { message, incidentId } = await pageTo('Search slow');
    const other = await h.newOrg('Other');
    await h.ok('PUT', '/api/v1/channel-settings/slack_app', { key: other.key, body: { botToken: slack.botToken, signingSecret: slack.signingSecret } });
    await addPerson(h, other.id, 'mia@acme.test', 'correct horse battery staple', 'member');
    const theirs = `http://alertflow.test/api/inbound/channels/slack_app/${other.id}/actions`;
    const r = await slack.press(message, 'resolve', 'U0MIA0001', { interactivityUrl: theirs });
    assert.equal(r.status, 404);
    assert.equal(await status(incidentId), 'triggered');
  });
});
