import { createHash, timingSafeEqual } from 'node:crypto';
import type { Static } from 'typebox';
import { errorSummary } from '../../../lib/logger.ts';
import { clip, isNotice, pageParts, PermanentFailure, secretField, targetSchema, textField, type Channel, type ChannelDeps, type ChannelTarget, type Message, type SendResult } from './channel.ts';
import { refused, type InboundContext, type InboundReply } from './inbound.ts';

/**
 * A Telegram bot of the organization's own: pages sent by it (sendMessage) with inline Acknowledge and Resolve
 * buttons; a press (a callback query, at the webhook the bot was given, with the secret-token header) acts as
 * the member who linked that Telegram account; the message follows the incident (editMessageText). A member
 * links their chat by sending the bot `/start <code>`. Shapes as the Telegram Bot API page (core.telegram.org/bots/api)
 * describes them.
 */

const Target = targetSchema({
  chatId: textField({ label: 'Chat ID', description: 'The chat to post in: a group\'s id (negative; the bot answers /chatid with it) or a member\'s own chat, linked from their contact methods.', pattern: '^-?[0-9]{1,20}$', maxLength: 21 }),
});
type Target = Static<typeof Target>;

const Settings = targetSchema({
  botToken: secretField({ label: 'Bot token', description: 'The token @BotFather gave the bot (123456:ABC…).', secretMin: 20 }),
});

/** Telegram's limits: 4,096 characters of text, 1–64 bytes of callback data, 200 characters of a callback answer. */
export const TELEGRAM_LIMITS = { text: 4096, callbackData: 64, answer: 200 } as const;
const ACTIONS = { a: 'acknowledge', r: 'resolve' } as const;

interface TgAnswer { ok?: boolean; description?: string; error_code?: number; result?: { message_id?: number; chat?: { id?: number }; username?: string } }

/** A Bot API method: JSON to `/bot<token>/<method>`; 429 and 5xx retried, `ok: false` final. */
async function tg(deps: ChannelDeps, token: string, method: string, body: Record<string, unknown>): Promise<{ result: SendResult; answer: TgAnswer }> {
  let res: Response;
  try {
    res = await fetch(`${deps.providers.telegramApiUrl}/bot${token}/${method}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'User-Agent': deps.userAgent }, body: JSON.stringify(body),
      redirect: 'manual', signal: AbortSignal.timeout(deps.webhookTimeoutMs),
    });
  } catch (err) {
    // The token is in the URL: an error says nothing of the URL.
    return { result: { outcome: 'retry', error: `Telegram: ${errorSummary(err).code ?? 'request failed'}`, responseStatus: null }, answer: {} };
  }
  const answer = (await res.json().catch(() => ({}))) as TgAnswer;
  const error = `Telegram: ${answer.description ?? `HTTP ${res.status}`}`;
  if (res.status === 429 || res.status >= 500) return { result: { outcome: 'retry', error, responseStatus: res.status }, answer };
  if (!res.ok || answer.ok !== true) return { result: { outcome: 'failed', error, responseStatus: res.status }, answer };
  return { result: { outcome: 'sent', error: null, responseStatus: res.status }, answer };
}

const tokenOf = (org: { settings: ChannelTarget | null }): string => {
  if (!org.settings?.botToken) throw new PermanentFailure('The Telegram bot is not set up for this organization (Settings, Channels)');
  return org.settings.botToken;
};

/** The secret the bot's webhook sends back in `X-Telegram-Bot-Api-Secret-Token`: derived from the bot token and the organization, so only the bot knows it. */
export const webhookSecret = (botToken: string, orgId: string): string =>
  createHash('sha256').update(`alertflow-telegram:${orgId}:${botToken}`).digest('base64url');

/** Plain text (no parse mode: what a sender wrote cannot become markup) and the inline keyboard the incident's state allows. */
export function telegramPayload(message: Message, chatId: string): Record<string, unknown> {
  const p = pageParts(message);
  const state = !isNotice(message) && message.incident && message.incident.status !== 'triggered' ? message.incident.status : null;
  const lines = [`${state ? `[${state.toUpperCase()}] ` : ''}[${p.severity.toUpperCase()}] ${p.title}`];
  if (p.description) lines.push('', p.description);
  if (p.labels.length) lines.push('', ...p.labels.slice(0, 20).map(([k, v]) => `${clip(k, 60)}=${clip(v, 200)}`));
  const keys = isNotice(message) || !message.incident ? []
    : state === 'resolved' ? [] : state === 'acknowledged' ? ['r'] : ['a', 'r'];
  const row = keys.map((k) => ({ text: k === 'a' ? 'Acknowledge' : 'Resolve', callback_data: `${k}:${message.deliveryId}` }));
  const open = isNotice(message) ? [] : [[{ text: 'Open in AlertFlow', url: message.alertUrl }]];
  return {
    chat_id: chatId,
    text: clip(lines.join('\n'), TELEGRAM_LIMITS.text),
    disable_web_page_preview: true,
    reply_markup: { inline_keyboard: [...(row.length ? [row] : []), ...open] },
  };
}

const ok: InboundReply = { status: 200, type: 'text', body: '' };

interface Update {
  update_id?: number;
  message?: { text?: string; chat?: { id?: number; type?: string }; from?: { id?: number } };
  callback_query?: { id?: string; data?: string; from?: { id?: number } };
}

/** `/start <code>` links the sender's chat to the member who asked for the code; `/chatid` says a group's id. */
async function onMessage(ctx: InboundContext, orgId: string, token: string, m: NonNullable<Update['message']>): Promise<void> {
  const chatId = String(m.chat?.id ?? '');
  const say = (text: string) => tg(ctx.deps, token, 'sendMessage', { chat_id: chatId, text });
  const text = (m.text ?? '').trim();
  if (text === '/chatid' || text.startsWith('/chatid@')) {
    await say(`This chat's id is ${chatId}: give it to an AlertFlow escalation step or workflow to post here.`);
    return;
  }
  const start = /^\/start(?:@\w+)?\s+([A-Za-z0-9]{6,12})$/.exec(text);
  if (start && m.chat?.type === 'private') {
    const linked = await ctx.link(orgId, start[1] as string, { chatId }, String(m.from?.id ?? ''));
    await say(linked ? `Linked: AlertFlow pages ${linked.email} here from now on.` : 'That code is unknown, used or expired: ask for a new one in AlertFlow (Contact methods, Link Telegram).');
    return;
  }
  await say('This is your organization\'s AlertFlow bot. To be paged here, link your account: in AlertFlow, Contact methods, Link Telegram.');
}

export const telegramChannel: Channel<Target> = {
  label: 'Telegram',
  about: 'A message from your organization\'s Telegram bot; its Acknowledge and Resolve buttons act as the member who linked that Telegram account, and the message shows what became of the incident.',
  uses: ['contact', 'escalation', 'workflow'],
  target: Target,
  describe: (t) => `Telegram chat ${t.chatId}`,
  name: (t) => `Telegram ${t.chatId}`,
  host: () => null,
  linking: { instructions: (code, settings) => `In Telegram, open ${settings?.botUsername ? `@${settings.botUsername}` : 'your organization\'s AlertFlow bot'} and send: /start ${code}` },
  settings: {
    schema: Settings,
    about: 'Create a bot with @BotFather (/newbot) and paste its token here: AlertFlow points the bot\'s webhook at itself, with a secret token. Members then link their own chats from their contact methods; add the bot to a group and send /chatid there for a group\'s id.',
    async check(deps, setup) {
      const token = setup.settings.botToken as string;
      const me = await tg(deps, token, 'getMe', {});
      if (me.result.outcome !== 'sent') return { ok: false, problem: `${me.result.error ?? 'Telegram refused the token'}` };
      const hook = await tg(deps, token, 'setWebhook', {
        url: `${deps.baseUrl}/api/inbound/channels/telegram/${setup.orgId}/webhook`, secret_token: webhookSecret(token, setup.orgId), allowed_updates: ['message', 'callback_query'],
      });
      if (hook.result.outcome !== 'sent') return { ok: false, problem: `The webhook could not be set: ${hook.result.error ?? ''}` };
      return { ok: true, learned: { botUsername: me.answer.result?.username ?? '' } };
    },
    urls: (deps, orgId) => ({ webhook: `${deps.baseUrl}/api/inbound/channels/telegram/${orgId}/webhook` }),
  },
  render: (message, t) => telegramPayload(message, t.chatId),
  async send(deps, message, t, org) {
    const { result, answer } = await tg(deps, tokenOf(org), 'sendMessage', telegramPayload(message, t.chatId));
    return result.outcome === 'sent' && answer.result?.message_id ? { ...result, ref: `${answer.result.chat?.id ?? t.chatId}:${answer.result.message_id}` } : result;
  },
  async refresh(deps, message, ref, org) {
    const [chatId, messageId] = ref.split(':');
    const { chat_id: _chat, ...rest } = telegramPayload(message, chatId as string);
    const r = await tg(deps, tokenOf(org), 'editMessageText', { chat_id: chatId, message_id: Number(messageId), ...rest });
    // Already showing it (an update came twice): nothing to change.
    return r.result.outcome === 'failed' && /not modified/.test(r.answer.description ?? '') ? { ...r.result, outcome: 'sent', error: null } : r.result;
  },
  inbound: {
    /** The bot's webhook: button presses, and messages to the bot (a member linking their chat). */
    webhook: {
      body: 'json',
      perOrg: true,
      async handle(ctx, req) {
        const settings = req.orgId ? await ctx.settings(req.orgId) : null;
        if (!settings?.botToken || !req.orgId) return refused(404, 'No Telegram bot is set up here');
        const orgId = req.orgId;
        const token = settings.botToken;
        const given = Buffer.from(req.headers['x-telegram-bot-api-secret-token'] ?? '');
        const expected = Buffer.from(webhookSecret(token, orgId));
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refused(401, 'Invalid secret token');
        const update = (req.json ?? {}) as Update;
        if (update.message) {
          await onMessage(ctx, orgId, token, update.message);
          return ok;
        }
        const q = update.callback_query;
        const m = /^([ar]):(\S{1,60})$/.exec(q?.data ?? '');
        if (!q?.id || !m) return ok;
        const notify = (text: string) => tg(ctx.deps, token, 'answerCallbackQuery', { callback_query_id: q.id, text: clip(text, TELEGRAM_LIMITS.answer), show_alert: true });
        const page = await ctx.page(m[2] as string);
        // Another organization's page is not this bot's to answer.
        if (!page || page.orgId !== orgId) {
          await notify('This page is not one of this bot\'s.');
          return ok;
        }
        const memberId = await ctx.member(orgId, String(q.from?.id ?? ''));
        if (!memberId) {
          await notify('Link your Telegram account to AlertFlow first (Contact methods, Link Telegram): nothing changed.');
          return ok;
        }
        const action = ACTIONS[m[1] as keyof typeof ACTIONS];
        const r = await ctx.answer({ page, action, userId: memberId, eventKey: q.id, via: `Telegram button pressed by user ${String(q.from?.id ?? '')}` });
        const done = action === 'acknowledge' ? 'Acknowledged' : 'Resolved';
        await notify(r.state === 'done' ? `${done} #${r.incident.number}.` : r.state === 'already' ? `#${r.incident.number} is already ${r.incident.status}: nothing changed.` : r.state === 'gone' ? 'That incident no longer exists.' : 'Already done.');
        return ok;
      },
    },
  },
};
