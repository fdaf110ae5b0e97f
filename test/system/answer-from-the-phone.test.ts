import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { createIntegration, createOrg, runCli, sleep, startServer, stopAll, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { startSlackSim, type SlackSim } from '../support/slack-sim.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';
import { startTwilioSim, twilioEnv, type TwilioSim } from '../support/twilio-sim.ts';

/**
 * Answering from where you are, on a real process (issue 21's system test): an incident's escalation calls
 * the first person (Twilio's simulator), who picks up and presses nothing; its next step texts the second
 * person, who replies the code; the incident is acknowledged once, the escalation stops (no third step), and
 * the team's Slack message (the organization's Slack app, Slack's simulator) shows it through chat.update.
 * Forged, replayed, expired, wrong-number and other organizations' answers are refused and change nothing.
 */

// A policy "minute" lasts 1 s here (ESCALATION_MINUTE_MS, for tests only).
const MINUTE_MS = 1000;
const STEP_DELAY = 3;
const PASSWORD = 'correct horse battery staple';
const VIC = '+4915100000011';
const SAM = '+4915100000012';
const PUBLIC_URL = 'http://alertflow.test';

interface Member { id: string; headers: Record<string, string> }

eachStore('answering a page from the phone, on a real process', { together: true }, (kind) => {
  let store: TestStore;
  let twilio: TwilioSim;
  let slack: SlackSim;
  let server: ServerProcess | undefined;
  let org: CreatedOrg;
  let other: CreatedOrg;

  const api = async (method: string, path: string, body?: unknown, key = org.apiKey) => {
    const r = await server!.request(method, `/api/v1${path}`, { key, ...(body !== undefined && { body }) });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.raw}`);
    return r.body;
  };
  const incident = async (id: string) => (await api('GET', `/incidents/${id}`)).data;
  const statusChanges = (inc: { timeline: Array<Record<string, any>> }) => inc.timeline.filter((t) => t.type === 'status_changed');

  /** A member with a password (the CLI), signed in to the dashboard's API. */
  async function member(email: string): Promise<Member> {
    const added = await runCli(['user', 'add', '--org', org.org.id, '--email', email, '--name', email.split('@')[0] as string, '--password', PASSWORD, '--json'], { DATABASE_URL: store.url });
    assert.equal(added.code, 0, added.stderr);
    const login = await server!.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
    assert.equal(login.status, 200, login.raw);
    const cookie = (login.headers.get('set-cookie') as string).split(';')[0] as string;
    return { id: (JSON.parse(added.stdout) as { user: { id: string } }).user.id, headers: { cookie, 'x-csrf-token': login.body.data.csrfToken as string } };
  }

  /** Adds a number as the member's only contact method and confirms it with the code Twilio's simulator delivered. */
  async function confirmedNumber(m: Member, type: 'sms' | 'voice', number: string): Promise<void> {
    const methods = '/api/v1/users/me/contact-methods';
    const added = await server!.request('POST', methods, { headers: m.headers, body: { type, target: { number } } });
    assert.equal(added.status, 201, added.raw);
    const id = added.body.data.id as string;
    assert.equal((await server!.request('POST', `${methods}/${id}/send-code`, { headers: m.headers })).status, 200);
    const carrier = type === 'sms'
      ? (await eventually('the code by text', () => twilio.messages.find((x) => x.to === number))).body
      : (await twilio.nextCall(number)).twiml;
    const code = /(\d) (\d) (\d) (\d) (\d) (\d)/.exec(carrier)!.slice(1).join('');
    const verified = await server!.request('POST', `${methods}/${id}/verify`, { headers: m.headers, body: { code } });
    assert.equal(verified.body.data.verified, true, verified.raw);
  }

  before(async () => {
    [store, twilio, slack] = await Promise.all([createTestStore(kind), startTwilioSim({ publicUrl: PUBLIC_URL }), startSlackSim({ publicUrl: PUBLIC_URL })]);
    server = await startServer({
      DATABASE_URL: store.url, BASE_URL: PUBLIC_URL, JOB_POLL_MS: '50', ESCALATION_MINUTE_MS: String(MINUTE_MS),
      ...twilioEnv(twilio), SLACK_API_URL: slack.url,
    }, { timeoutMs: 90_000 });
    twilio.appUrl = server.url;
    slack.appUrl = server.url;
    org = await createOrg(store.url);
    other = await createOrg(store.url, 'Other', 'owner@other.test');
    slack.users.set('U0SAM0001', 'sam@acme.test');
  });
  after(async () => {
    await stopAll([server]);
    await Promise.all([twilio.close(), slack.close()]);
    await store.drop();
  });

  it('a call nobody answers with a key, then a text whose reply code acknowledges once: the escalation stops, Slack shows it', async () => {
    const [vic, sam] = [await member('vic@acme.test'), await member('sam@acme.test')];
    await confirmedNumber(vic, 'voice', VIC);
    await confirmedNumber(sam, 'sms', SAM);
    const app = await api('PUT', '/channel-settings/slack_app', { botToken: slack.botToken, signingSecret: slack.signingSecret });
    const interactivity = app.data.urls.interactivity as string;
    // The other organization has its own Slack app (same workspace): its URL is not ours.
    const theirs = (await api('PUT', '/channel-settings/slack_app', { botToken: slack.botToken, signingSecret: slack.signingSecret }, other.apiKey)).data.urls.interactivity as string;

    const policy = await api('POST', '/escalation-policies', {
      name: 'Payments',
      steps: [
        { delayMinutes: STEP_DELAY, targets: [{ type: 'user', id: vic.id }, { type: 'channel', channel: 'slack_app', target: { channel: 'C0ALERTS01' } }] },
        { delayMinutes: STEP_DELAY, targets: [{ type: 'user', id: sam.id }] },
        { delayMinutes: STEP_DELAY, targets: [{ type: 'user', id: vic.id }] },
      ],
    });
    await api('POST', '/workflows', { name: 'Page payments', trigger: 'alert.created', actions: [{ type: 'create_incident', escalationPolicyId: policy.data.id }] });
    const ingest = await server!.request('POST', (await createIntegration(server!, org.apiKey)).path, { body: { title: 'Card payments failing', severity: 'critical' } });
    assert.equal(ingest.status, 200, ingest.raw);
    const alertId = ingest.body.data.alerts[0].alertId as string;
    const incidentId = await eventually('the incident', async () => ((await api('GET', `/alerts/${alertId}`)).data.incidentId as string | null) ?? undefined);

    // Step 1: Vic's phone rings and reads the page; nobody presses a key.
    const call = await twilio.nextCall(VIC, 60_000);
    await twilio.answer(call);
    assert.match(call.said[0] as string, /^AlertFlow page\. critical\. #\d+ Card payments failing\. Press 4 to acknowledge, 6 to resolve\.$/);
    await twilio.silence(call);
    await twilio.silence(call);
    assert.equal(call.state, 'done');
    assert.equal(call.said.at(-1), 'No key was pressed. Goodbye.');
    const message = await eventually('the Slack message', () => slack.messages.find((m) => m.text.includes('Card payments failing')));
    assert.deepEqual(slack.buttons(message), ['acknowledge', 'resolve', 'open']);

    // Step 2: Sam gets a text with the reply code.
    const page = await eventually('the text to Sam', () => twilio.messages.find((m) => m.to === SAM && m.body.includes('Card payments failing')), 60_000);
    const number = (await incident(incidentId)).number as number;
    assert.equal(page.body, `AlertFlow [CRITICAL] #${number} Card payments failing Reply ${number} to acknowledge, ${number}R to resolve.`);
    const code = String(number);

    // Answers that must change nothing: forged (another signature), Vic's number (it was called, not texted),
    // Sam's Slack press signed six minutes ago (expired), or sent to the other organization's app.
    const forged = await twilio.post('/api/inbound/channels/sms/reply', { AccountSid: twilio.accountSid, MessageSid: 'SMforged', From: SAM, To: page.from, Body: code }, twilio.sign(`${PUBLIC_URL}/elsewhere`, {}));
    assert.equal(forged.status, 403);
    assert.match((await twilio.text(VIC, code)).reply, /^No page for this number has the code/);
    assert.equal((await slack.press(message, 'acknowledge', 'U0SAM0001', { interactivityUrl: interactivity, ageSeconds: 360 })).status, 401);
    assert.equal((await slack.press(message, 'acknowledge', 'U0SAM0001', { interactivityUrl: theirs })).status, 404);
    assert.equal((await incident(incidentId)).status, 'triggered', 'nothing changed');

    // Sam replies the code: acknowledged, as Sam, by SMS.
    const reply = await twilio.text(SAM, code, { to: page.from, sid: 'SMsam0001' });
    assert.equal(reply.reply, `Acknowledged #${number} Card payments failing. The escalation has stopped.`);
    // Twilio delivering the same message again (a replay): no second answer, no second change.
    assert.equal((await twilio.text(SAM, code, { to: page.from, sid: 'SMsam0001' })).reply, '');
    const acked = await incident(incidentId);
    assert.equal(acked.status, 'acknowledged');
    assert.deepEqual(statusChanges(acked).map((t) => [t.actor.id, t.data.via]), [[sam.id, `SMS reply from ${SAM}`]]);
    assert.ok(acked.timeline.some((t: Record<string, any>) => t.type === 'escalation_stopped' && t.data.reason === 'acknowledged'));

    // The Slack message follows (chat.update): acknowledged, only Resolve left.
    await eventually('the Slack message updated', () => (message.updates >= 1 ? message : undefined));
    assert.match(message.text, /^\[ACKNOWLEDGED\] \[CRITICAL\] #\d+ Card payments failing$/);
    assert.deepEqual(slack.buttons(message), ['resolve', 'open']);

    // Step 3 never comes: past its delay, still one call to Vic, one page to Sam.
    await sleep(2 * STEP_DELAY * MINUTE_MS + 1500);
    assert.equal(twilio.calls.filter((c) => c.to === VIC).length, 2, 'the code call and the step 1 page, no step 3');
    assert.equal(twilio.messages.filter((m) => m.to === SAM).length, 2, 'the code and the step 2 page');
    const final = await incident(incidentId);
    assert.deepEqual(final.timeline.filter((t: Record<string, any>) => t.type === 'escalation_step').map((t: Record<string, any>) => t.data.step), [1, 2]);
    assert.equal(statusChanges(final).length, 1, 'acknowledged once');

    // The delivery log: the call completed with no key, the text delivered and answered by SMS reply.
    const log = (await api('GET', `/alerts/${alertId}/notifications`)).data as Array<Record<string, any>>;
    const sms = log.find((n) => n.channel === 'sms');
    assert.equal(sms?.providerStatus, 'delivered');
    assert.deepEqual(sms?.answers.map((a: Record<string, string>) => [a.action, a.outcome, a.via]), [['acknowledge', 'done', `SMS reply from ${SAM}`]]);
    assert.deepEqual(log.find((n) => n.channel === 'voice')?.answers, [], 'no key pressed');
    assert.deepEqual([...twilio.refusals, ...slack.refusals], []);
  });
});
