import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import type { ChildEnv } from '../support/process.ts';
import { startSlackSim, type SlackSim } from '../support/slack-sim.ts';
import { startTelegramSim, type TelegramSim } from '../support/telegram-sim.ts';
import { startTwilioSim, twilioEnv, type TwilioSim } from '../support/twilio-sim.ts';
import { apiAsBrowser, assertAccessible, assertAccessibleNarrowAndDark, eachStore, ingestAt, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * The Channels settings page and answering a page, in Debian's Chromium against a real `alertflow serve` pointed at
 * the Twilio, Slack and Telegram simulators, on both stores: Twilio shown from the environment (read-only, its
 * messaging webhook URL to copy); the organization's Slack app set up with a token Slack accepts (a refused token,
 * and Telegram refusing a webhook that is not HTTPS, said in words); a phone number confirmed with the code the
 * simulator received; a test text from the Channels page; and a page answered by an SMS reply, shown in the alert's
 * delivery log. axe at 1280 px, 390 px and dark.
 */

const browser = sharedBrowser();
const NUMBER = '+4915100000021';

eachStore('channels in the dashboard', { together: true }, (kind) => {
  let twilio: TwilioSim;
  let slack: SlackSim;
  let telegram: TelegramSim;
  const env: ChildEnv = {};
  // Before the dashboard's own hook (registered first, run first): the server starts pointed at the simulators.
  before(async () => {
    [twilio, slack, telegram] = await Promise.all([startTwilioSim(), startSlackSim({ publicUrl: '' }), startTelegramSim({ publicUrl: '' })]);
    Object.assign(env, twilioEnv(twilio), { SLACK_API_URL: slack.url, TELEGRAM_API_URL: telegram.url });
  });
  const app = useDashboard(browser, kind, { env });
  before(() => {
    for (const sim of [twilio, slack, telegram]) Object.assign(sim, { publicUrl: app.base, appUrl: app.base });
  });
  after(async () => {
    await Promise.all([twilio.close(), slack.close(), telegram.close()]);
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await apiAsBrowser(app.server, app.context, method, path, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.raw}`);
    return r.body.data;
  };

  it('shows Twilio from the environment, sets up the Slack app with a token Slack accepts, and says why Telegram refused its set-up', async () => {
    await app.page.getByRole('link', { name: 'Channels' }).click();
    await app.page.getByRole('heading', { name: 'Channels', exact: true }).waitFor();
    await app.page.getByTestId('twilio-status').filter({ hasText: 'On: set by the operator' }).waitFor();
    assert.equal(await app.page.getByTestId('sms-webhook-url').textContent(), `${app.base}/api/inbound/channels/sms/reply`);
    assert.match(await app.page.getByTestId('slack_app-status').textContent() ?? '', /^Not set up/);
    await assertAccessible(app.page, 'channels (nothing set up)');

    const slackForm = app.page.getByTestId('setup-slack_app');
    await slackForm.getByLabel('Bot token').fill('xoxb-not-the-right-token-0000');
    await slackForm.getByLabel('Signing secret').fill(slack.signingSecret);
    await slackForm.getByRole('button', { name: 'Save and check' }).click();
    await slackForm.getByRole('alert').filter({ hasText: 'Slack answered invalid_auth' }).waitFor();
    await assertAccessible(app.page, 'channels with a refused token');
    await slackForm.getByLabel('Bot token').fill(slack.botToken);
    await slackForm.getByRole('button', { name: 'Save and check' }).click();
    await slackForm.getByText('Saved: the provider accepted it.').waitFor();
    await app.page.getByTestId('slack_app-status').filter({ hasText: /^Set up/ }).waitFor();
    assert.equal(await slackForm.getByLabel('Bot token').inputValue(), '********', 'the token is never shown again');
    assert.equal(await app.page.getByTestId('slack_app-url-interactivity').textContent(), `${app.base}/api/inbound/channels/slack_app/${(await api('GET', '/auth/session')).organization.id}/actions`);

    // Telegram sets a bot's webhook only to an HTTPS URL, and this server's BASE_URL is plain HTTP: the page says so.
    const tgForm = app.page.getByTestId('setup-telegram');
    await tgForm.getByLabel('Bot token').fill(telegram.token);
    await tgForm.getByRole('button', { name: 'Save and check' }).click();
    await tgForm.getByRole('alert').filter({ hasText: 'HTTPS url must be provided for webhook' }).waitFor();
    assert.match(await app.page.getByTestId('telegram-status').textContent() ?? '', /^Not set up/);
    const catalogue = await api('GET', '/channels') as Array<{ type: string; available: boolean }>;
    assert.deepEqual(['sms', 'voice', 'slack_app', 'telegram'].map((t) => catalogue.find((c) => c.type === t)?.available), [true, true, true, false]);
    await assertAccessible(app.page, 'channels set up');
    await screenshot(app.page, `${kind}-channels`);
    await assertAccessibleNarrowAndDark(app.page, 'channels', `${kind}-channels`);
    assert.deepEqual(twilio.refusals, []);
  });

  it('confirms a number with its code, sends it a test text, and shows a page answered by SMS reply in the delivery log', async () => {
    await app.page.getByRole('link', { name: 'Your profile' }).click();
    await app.page.getByRole('link', { name: 'Contact methods and notification rules' }).click();
    // Telegram is linked from the chat (a code sent to the bot), not typed in; its bot is not set up here.
    assert.equal(await app.page.getByRole('button', { name: 'Link Telegram' }).isDisabled(), true);
    await app.page.getByRole('button', { name: 'Add contact method' }).click();
    assert.ok(!(await app.page.getByLabel('Type').locator('option').allTextContents()).includes('Telegram'));
    await app.page.getByLabel('Type').selectOption({ label: 'SMS' });
    await app.page.getByLabel('Phone number').fill(NUMBER);
    await app.page.getByRole('button', { name: 'Add', exact: true }).click();
    await app.page.getByText('Code sent. It expires in 10 minutes.').waitFor();
    const code = /(\d) (\d) (\d) (\d) (\d) (\d)/.exec(twilio.messages.find((m) => m.to === NUMBER)!.body)!.slice(1).join('');
    await app.page.getByLabel(`Code for SMS ${NUMBER}`).fill(code);
    await app.page.getByRole('button', { name: 'Confirm' }).click();
    await app.page.getByRole('button', { name: `Send a test to SMS ${NUMBER}` }).waitFor();

    await app.page.getByRole('link', { name: 'Channels' }).click();
    await app.page.getByRole('button', { name: `Send a test to SMS ${NUMBER}` }).click();
    await app.page.getByRole('status').filter({ hasText: 'Test page sent.' }).waitFor();
    assert.match(twilio.messages.at(-1)!.body, /test/i);

    const me = await api('GET', '/users/me');
    const policy = await api('POST', '/escalation-policies', { name: 'Me', steps: [{ delayMinutes: 5, targets: [{ type: 'user', id: me.id }] }] });
    await api('POST', '/workflows', { name: 'Page me', trigger: 'alert.created', actions: [{ type: 'create_incident', escalationPolicyId: policy.id }] });
    const integration = await api('POST', '/integrations', { name: 'Monitoring' });
    const alertId = await ingestAt(`${app.base}/api/inbound/webhook/${integration.token as string}`, { title: 'Checkout latency high', severity: 'high' });
    const page = await eventually('the text page', () => twilio.messages.find((m) => m.to === NUMBER && m.body.includes('Checkout latency high')));
    const reply = await twilio.text(NUMBER, /Reply (\d+) /.exec(page.body)![1]!, { to: page.from });
    assert.match(reply.reply, /^Acknowledged #\d+ Checkout latency high/);

    // Twilio's status callback is a request of its own, which a busy server may finish after the reply: the alert's
    // page shows the delivery log as it is when it loads, so it is opened once the provider's report is stored.
    await eventually('the page recorded sent, and Twilio\'s "delivered" stored with it', async () => {
      const log = await api('GET', `/alerts/${alertId}/notifications`) as Array<{ channel: string; status: string; providerStatus: string | null }>;
      return log.some((n) => n.channel === 'sms' && n.status === 'sent' && n.providerStatus === 'delivered') ? true : undefined;
    });
    await app.page.goto(`${app.base}/alerts/${alertId}`);
    await app.page.getByTestId('answer').filter({ hasText: `Acknowledged by SMS reply from ${NUMBER}` }).waitFor();
    await app.page.getByText('sent · delivered').waitFor();
    await assertAccessible(app.page, 'an alert whose page was answered by SMS');
    await screenshot(app.page, `${kind}-channels-answered`);
    assert.deepEqual(twilio.refusals, []);
  });
});
