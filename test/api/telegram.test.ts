import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson, asPerson, signIn, type Session } from '../support/sessions.ts';
import { eachStore } from '../support/stores.ts';
import { startTelegramSim, type TelegramSim } from '../support/telegram-sim.ts';

/**
 * An organization's Telegram bot (Telegram's simulator): set up with its token (webhook set with a secret
 * token); a member links their chat with a one-time code; a page has inline Acknowledge and Resolve buttons;
 * a press acts as the member who linked that account, once; forged, unlinked and other organizations' presses change
 * nothing; and the message follows the incident.
 */

const PASSWORD = 'correct horse battery staple';
const MIA_CHAT = '5550001';
const MIA_TG = 7770001;

eachStore('the Telegram bot', { together: true }, (kind) => {
  let h: Harness;
  let tg: TelegramSim;
  let mia: Session;
  before(async () => {
    tg = await startTelegramSim({ publicUrl: 'https://alertflow.test' });
    h = await startHarness(kind, { JOB_POLL_MS: '50', ESCALATION_MINUTE_MS: '60000', TELEGRAM_API_URL: tg.url, BASE_URL: 'https://alertflow.test' });
    tg.appUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
    await addPerson(h, h.org.id, 'mia@acme.test', PASSWORD, 'member');
    mia = await signIn(h, 'mia@acme.test', PASSWORD);
    tg.chats.add(MIA_CHAT);
  });
  after(async () => {
    await h.close();
    await tg.close();
  });
  const lastTo = (chat: string) => tg.messages.filter((m) => m.chatId === chat).at(-1);

  it('is set up with its token: the webhook is set with a secret token, the token never shown', async () => {
    const saved = await h.ok('PUT', '/api/v1/channel-settings/telegram', { body: { botToken: tg.token } });
    assert.deepEqual(saved.data.settings, { botToken: '********', botUsername: 'acme_alertflow_bot' });
    assert.equal(tg.webhook?.url, `https://alertflow.test/api/inbound/channels/telegram/${h.org.id}/webhook`);
    assert.match(tg.webhook?.secret ?? '', /^[A-Za-z0-9_-]{43}$/);
    const bad = await h.req('PUT', '/api/v1/channel-settings/telegram', { body: { botToken: '1:not-the-token-of-the-bot-xxxx' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.details[0].message, /Unauthorized/);
    tg.refusals.length = 0;
  });

  it('a member links their chat with a one-time code', async () => {
    const link = await asPerson(h, mia, 'POST', '/api/v1/users/me/contact-methods/link', { body: { type: 'telegram' } });
    assert.equal(link.status, 200, link.raw);
    const { code, instructions } = link.body.data as { code: string; instructions: string };
    assert.equal(instructions, `In Telegram, open @acme_alertflow_bot and send: /start ${code}`);
    assert.equal((await asPerson(h, mia, 'POST', '/api/v1/users/me/contact-methods', { body: { type: 'telegram', target: { chatId: MIA_CHAT } } })).status, 400, 'linked, not typed');
    await tg.say(MIA_CHAT, MIA_TG, `/start ${code}`);
    assert.equal(lastTo(MIA_CHAT)?.text, 'Linked: AlertFlow pages mia@acme.test here from now on.');
    const methods = (await asPerson(h, mia, 'GET', '/api/v1/users/me/contact-methods')).body.data as Array<{ type: string; target: { chatId: string }; verified: boolean }>;
    assert.deepEqual(methods.map((m) => [m.type, m.target.chatId, m.verified]), [['telegram', MIA_CHAT, true]]);
    await tg.say(MIA_CHAT, 9990001, `/start ${code}`);
    assert.match(lastTo(MIA_CHAT)?.text ?? '', /^That code is unknown, used or expired/, 'once');
  });

  it('a press acts once as the member who linked that account; the message follows the incident', async () => {
    const policy = await h.ok('POST', '/api/v1/escalation-policies', { body: { name: 'p', steps: [{ delayMinutes: 1, targets: [{ type: 'user', id: mia.userId }] }] } }, 201);
    await h.ok('POST', '/api/v1/workflows', { body: { name: 'w', trigger: 'alert.created', actions: [{ type: 'create_incident', escalationPolicyId: policy.data.id }] } }, 201);
    const alertId = await h.ingestAlert((await h.integration()).path, { title: 'Broker down', severity: 'high' });
    const page = await eventually('the page', () => tg.messages.find((m) => m.chatId === MIA_CHAT && m.text.includes('Broker down')));
    const incidentId = (await h.ok('GET', `/api/v1/alerts/${alertId}`)).data.incidentId as string;
    const [ack, resolve] = tg.buttons(page);
    assert.match(ack ?? '', /^a:ntf_/);
    assert.match(resolve ?? '', /^r:ntf_/);
    assert.ok(Buffer.byteLength(ack as string) <= 64);

    assert.equal((await tg.press(page, ack as string, MIA_TG, { secret: 'forged' })).status, 401);
    await tg.press(page, ack as string, 4440001);
    assert.match(tg.answers.at(-1)!.text, /^Link your Telegram account to AlertFlow first/);
    assert.equal((await h.ok('GET', `/api/v1/incidents/${incidentId}`)).data.status, 'triggered');

    const pressed = await tg.press(page, ack as string, MIA_TG);
    assert.match(tg.answers.at(-1)!.text, /^Acknowledged #\d+\.$/);
    const detail = (await h.ok('GET', `/api/v1/incidents/${incidentId}`)).data;
    assert.equal(detail.status, 'acknowledged');
    assert.equal(detail.timeline.find((t: { type: string }) => t.type === 'status_changed').actor.id, mia.userId);
    await eventually('the message updated', () => (page.edits >= 1 ? true : undefined));
    assert.deepEqual(tg.buttons(page).map((b) => b.slice(0, 2)), ['r:', 'ur']);
    assert.match(page.text, /^\[ACKNOWLEDGED\]/);
    await tg.press(page, ack as string, MIA_TG, { callbackId: pressed.callbackId });
    assert.equal(tg.answers.at(-1)!.text, 'Already done.', 'a replayed callback acts once');
    assert.deepEqual(tg.refusals, []);
  });

  it('/chatid tells a group its id, for escalation steps and workflows', async () => {
    tg.chats.add('-1001234');
    await tg.say('-1001234', MIA_TG, '/chatid', 'group');
    assert.match(lastTo('-1001234')?.text ?? '', /^This chat's id is -1001234/);
  });

  // Last: the bot's webhook is then the other organization's.
  it('another organization\'s bot cannot answer this organization\'s page', async () => {
    // The acknowledged page of the press test: its Resolve button, pressed through the other organization's bot.
    const page = tg.messages.find((m) => m.chatId === MIA_CHAT && m.text.includes('Broker down'))!;
    const incidentId = (await h.ok('GET', '/api/v1/incidents?status=acknowledged')).data[0].id as string;
    const other = await h.newOrg('Other');
    await h.ok('PUT', '/api/v1/channel-settings/telegram', { key: other.key, body: { botToken: tg.token } });
    assert.ok(tg.webhook?.url.includes(other.id), 'the bot now posts to the other organization\'s webhook');
    const resolve = tg.buttons(page).find((b) => b.startsWith('r:'));
    assert.equal((await tg.press(page, resolve as string, MIA_TG)).status, 200);
    assert.equal(tg.answers.at(-1)!.text, 'This page is not one of this bot\'s.');
    assert.equal((await h.ok('GET', `/api/v1/incidents/${incidentId}`)).data.status, 'acknowledged', 'nothing changed');
  });
});
