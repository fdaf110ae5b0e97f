import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Static } from 'typebox';
import { errorSummary } from '../../../lib/logger.ts';
import { isNotice, PermanentFailure, secretField, targetSchema, textField, type Channel, type ChannelDeps, type ChannelTarget, type Message, type SendResult } from './channel.ts';
import { formField, refused, type InboundReply } from './inbound.ts';
import { SLACK_LIMITS, slackPayload } from './slack.ts';

/**
 * A Slack app of the organization's own: pages posted by its bot (chat.postMessage) with Acknowledge and
 * Resolve buttons; a press (block_actions, at our interactivity URL, signed with the app's signing secret)
 * acts as the AlertFlow member whose email Slack has for the presser (users.info), and the message follows
 * the incident (chat.update). Shapes as Slack's Web API OpenAPI document (slackapi/slack-api-specs) and its
 * "Verifying requests from Slack" and block_actions pages describe them.
 */

const Target = targetSchema({
  channel: textField({ label: 'Channel or member ID', description: 'A channel ID (C…, G…) the app was invited to, or a member ID (U…) for a direct message: in Slack, the channel\'s or profile\'s details.', pattern: '^[CGDUW][A-Z0-9]{6,30}$', maxLength: 32 }),
});
type Target = Static<typeof Target>;

const Settings = targetSchema({
  botToken: secretField({ label: 'Bot token', description: 'The app\'s Bot User OAuth Token (xoxb-…), with the scopes chat:write, users:read and users:read.email.', secretMin: 20 }),
  signingSecret: secretField({ label: 'Signing secret', description: 'Basic Information, App Credentials: Signing Secret. Verifies that a button press is Slack\'s.', secretMin: 16 }),
});

const ACTIONS = { acknowledge: 'Acknowledge', resolve: 'Resolve' } as const;
type Action = keyof typeof ACTIONS;
/** Slack refuses a request signed more than five minutes ago (a replay). */
const SIGNATURE_WINDOW_S = 300;

interface SlackAnswer { ok?: boolean; error?: string; channel?: string; ts?: string; user?: { profile?: { email?: string | null; real_name?: string } } }

/** A Web API method: JSON with the bot token as bearer; 429 and 5xx retried, `ok: false` final unless rate limited. */
async function slackApi(deps: ChannelDeps, token: string, method: string, body: Record<string, unknown> | null): Promise<{ result: SendResult; answer: SlackAnswer }> {
  let res: Response;
  try {
    res = await fetch(`${deps.providers.slackApiUrl}/${method}`, {
      method: body === null ? 'GET' : 'POST',
      headers: { Authorization: `Bearer ${token}`, 'User-Agent': deps.userAgent, ...(body !== null && { 'Content-Type': 'application/json; charset=utf-8' }) },
      ...(body !== null && { body: JSON.stringify(body) }),
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.webhookTimeoutMs),
    });
  } catch (err) {
    return { result: { outcome: 'retry', error: `Slack: ${errorSummary(err).message ?? 'request failed'}`, responseStatus: null }, answer: {} };
  }
  const answer = (await res.json().catch(() => ({}))) as SlackAnswer;
  if (res.status === 429 || res.status >= 500 || answer.error === 'ratelimited') return { result: { outcome: 'retry', error: `Slack: ${answer.error ?? `HTTP ${res.status}`}`, responseStatus: res.status }, answer };
  if (!res.ok || answer.ok !== true) return { result: { outcome: 'failed', error: `Slack: ${answer.error ?? `HTTP ${res.status}`}`, responseStatus: res.status }, answer };
  return { result: { outcome: 'sent', error: null, responseStatus: res.status }, answer };
}

const settingsOf = (org: { settings: ChannelTarget | null }) => {
  if (!org.settings?.botToken) throw new PermanentFailure('The Slack app is not set up for this organization (Settings, Channels)');
  return org.settings as { botToken: string; signingSecret: string };
};

/** What the incident is now, and the buttons that still make sense: none once resolved. */
function stateOf(message: Message): { state: string | null; actions: Action[] } {
  if (isNotice(message) || !message.incident) return { state: null, actions: [] };
  const s = message.incident.status;
  return { state: s === 'triggered' ? null : s, actions: s === 'triggered' ? ['acknowledge', 'resolve'] : s === 'acknowledged' ? ['resolve'] : [] };
}

/** The message: the page's blocks with the app's own buttons, which carry the notification id. */
export function appPayload(message: Message): Record<string, unknown> {
  const { state, actions } = stateOf(message);
  const buttons: unknown[] = actions.map((a) => ({ type: 'button', text: { type: 'plain_text', text: ACTIONS[a] }, action_id: a, value: message.deliveryId, ...(a === 'acknowledge' && { style: 'primary' }) }));
  if (!isNotice(message)) buttons.push({ type: 'button', text: { type: 'plain_text', text: 'Open in AlertFlow' }, url: message.alertUrl.slice(0, SLACK_LIMITS.buttonUrl), action_id: 'open' });
  return slackPayload(message, buttons, state);
}

/** `X-Slack-Signature`: `v0=` and the hex HMAC-SHA256 of `v0:<timestamp>:<body>` keyed with the signing secret. */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** Signed with the app's secret, in constant time, less than five minutes ago. */
export function fromSlack(secret: string, headers: Readonly<Record<string, string | undefined>>, body: string, nowMs: number): boolean {
  const ts = headers['x-slack-request-timestamp'] ?? '';
  if (!/^\d{1,12}$/.test(ts) || Math.abs(nowMs / 1000 - Number(ts)) > SIGNATURE_WINDOW_S) return false;
  const given = Buffer.from(headers['x-slack-signature'] ?? '');
  const expected = Buffer.from(slackSignature(secret, ts, body));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const ok: InboundReply = { status: 200, type: 'text', body: '' };

export const slackAppChannel: Channel<Target> = {
  label: 'Slack (app with buttons)',
  about: 'A message posted by your organization\'s Slack app; its Acknowledge and Resolve buttons act as the AlertFlow member with the presser\'s email, and the message shows what became of the incident.',
  uses: ['contact', 'escalation', 'workflow'],
  target: Target,
  describe: (t) => `Slack ${t.channel}`,
  name: (t) => `Slack ${t.channel}`,
  host: () => null,
  settings: {
    schema: Settings,
    about: 'Create a Slack app (api.slack.com/apps), give its bot the scopes chat:write, users:read and users:read.email, install it to your workspace, set Interactivity\'s Request URL to the interactivity URL below, and invite the bot to the channels it posts in. Then paste its bot token and signing secret here.',
    check: async (deps, setup) => {
      const { result, answer } = await slackApi(deps, setup.settings.botToken as string, 'auth.test', {});
      return result.outcome === 'sent' ? { ok: true } : { ok: false, problem: `Slack answered ${answer.error ?? result.error ?? 'nothing'} to the bot token` };
    },
    urls: (deps, orgId) => ({ interactivity: `${deps.baseUrl}/api/inbound/channels/slack_app/${orgId}/actions` }),
  },
  render: (message) => appPayload(message),
  async send(deps, message, t, org) {
    const { result, answer } = await slackApi(deps, settingsOf(org).botToken, 'chat.postMessage', { channel: t.channel, ...appPayload(message) });
    return result.outcome === 'sent' && answer.channel && answer.ts ? { ...result, ref: `${answer.channel}:${answer.ts}` } : result;
  },
  async refresh(deps, message, ref, org) {
    const [channel, ts] = ref.split(':');
    return (await slackApi(deps, settingsOf(org).botToken, 'chat.update', { channel, ts, ...appPayload(message) })).result;
  },
  inbound: {
    /** The app's interactivity URL: a button pressed on a page. */
    actions: {
      body: 'form',
      perOrg: true,
      async handle(ctx, req) {
        const settings = req.orgId ? await ctx.settings(req.orgId) : null;
        if (!settings || !req.orgId) return refused(404, 'No Slack app is set up here');
        if (!fromSlack(settings.signingSecret as string, req.headers, req.rawBody, ctx.now())) return refused(401, 'Invalid or expired signature');
        let payload: { type?: string; user?: { id?: string }; channel?: { id?: string }; actions?: Array<{ action_id?: string; value?: string; action_ts?: string }> };
        try {
          payload = JSON.parse(formField(req, 'payload')) as typeof payload;
        } catch {
          return refused(404, 'No payload');
        }
        const act = payload.actions?.[0];
        if (payload.type !== 'block_actions' || !act || !Object.hasOwn(ACTIONS, act.action_id ?? '')) return ok;
        const page = await ctx.page(act.value ?? '');
        // Another organization's page is not this app's to answer.
        if (!page || page.orgId !== req.orgId) return refused(404, 'No such page');
        const slackUser = payload.user?.id ?? '';
        const tell = (text: string) => slackApi(ctx.deps, settings.botToken as string, 'chat.postEphemeral', { channel: payload.channel?.id, user: slackUser, text });
        const info = await slackApi(ctx.deps, settings.botToken as string, `users.info?user=${encodeURIComponent(slackUser)}`, null);
        const email = info.answer.user?.profile?.email ?? null;
        const memberId = email ? await ctx.memberByEmail(req.orgId, email) : null;
        if (!memberId) {
          await tell(email ? `No member of this AlertFlow organization has the email ${email}: nothing changed.` : 'Slack did not tell AlertFlow your email (the app needs users:read.email): nothing changed.');
          return ok;
        }
        const action = act.action_id as Action;
        const r = await ctx.answer({ page, action, userId: memberId, eventKey: `${slackUser}:${act.action_ts ?? ''}`, via: `Slack button pressed by ${email}` });
        // A change updates the message for everyone (the incident's message-update job); the rest is said to the presser alone.
        if (r.state === 'already') await tell(`Incident #${r.incident.number} is already ${r.incident.status}: nothing changed.`);
        if (r.state === 'gone') await tell('That incident no longer exists.');
        return ok;
      },
    },
  },
};
