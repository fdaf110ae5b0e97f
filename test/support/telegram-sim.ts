import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Telegram Bot API for tests, from the Bot API page (core.telegram.org/bots/api): `/bot<token>/<method>`
 * with JSON, answers `{ok, result}` or `{ok: false, error_code, description}`; getMe, setWebhook (an HTTPS URL,
 * a secret_token of 1–256 of A-Z a-z 0-9 _ -), sendMessage (text of 1–4096 characters, inline keyboards whose
 * callback_data is 1–64 bytes), editMessageText ("message is not modified" when nothing changes) and
 * answerCallbackQuery (0–200 characters); and updates posted to the webhook with the secret-token header.
 */

export interface TgMessage {
  chatId: string;
  messageId: number;
  text: string;
  keyboard: Array<Array<{ text: string; callback_data?: string; url?: string }>>;
  edits: number;
}

export interface TelegramSim {
  url: string;
  token: string;
  username: string;
  webhook: { url: string; secret: string } | null;
  /** Chats the bot may write to. */
  chats: Set<string>;
  messages: TgMessage[];
  answers: Array<{ id: string; text: string }>;
  refusals: string[];
  publicUrl: string;
  appUrl: string;
  /** A user presses an inline button; `secret` replaces the webhook's secret token (a forgery). */
  press(message: TgMessage, data: string, fromId: number, opts?: { secret?: string; callbackId?: string }): Promise<{ status: number; callbackId: string }>;
  /** A user writes to the bot (in their private chat unless `type` says otherwise). */
  say(chatId: string, fromId: number, text: string, type?: 'private' | 'group'): Promise<number>;
  /** The callback data of a message's buttons now. */
  buttons(message: TgMessage): string[];
  close(): Promise<void>;
}

const SECRET = /^[A-Za-z0-9_-]{1,256}$/;

export async function startTelegramSim(opts: { publicUrl: string }): Promise<TelegramSim> {
  let updateId = 1000;
  let messageId = 0;
  const sent = new Set<string>();
  const sim: TelegramSim = {
    url: '', token: `${Math.floor(Math.random() * 1e9)}:${randomBytes(17).toString('base64url')}`, username: 'acme_alertflow_bot', webhook: null,
    chats: new Set(), messages: [], answers: [], refusals: [], publicUrl: opts.publicUrl, appUrl: '',
    buttons: (m) => m.keyboard.flat().map((b) => b.callback_data ?? `url:${b.url}`),
    async press(message, data, fromId, o = {}) {
      const callbackId = o.callbackId ?? randomBytes(8).toString('hex');
      sent.add(callbackId);
      const update = {
        update_id: ++updateId,
        callback_query: {
          id: callbackId, from: { id: fromId, is_bot: false, first_name: 'Tester' }, chat_instance: '-1',
          message: { message_id: message.messageId, date: 0, chat: { id: Number(message.chatId), type: 'private' }, text: message.text }, data,
        },
      };
      return { status: await post(update, o.secret), callbackId };
    },
    say: (chatId, fromId, text, type = 'private') =>
      post({ update_id: ++updateId, message: { message_id: ++messageId, date: 0, from: { id: fromId, is_bot: false, first_name: 'Tester' }, chat: { id: Number(chatId), type }, text } }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function post(update: unknown, secret?: string): Promise<number> {
    if (!sim.webhook) throw new Error('no webhook is set');
    const res = await fetch(`${sim.appUrl}${sim.webhook.url.slice(sim.publicUrl.length)}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Telegram-Bot-Api-Secret-Token': secret ?? sim.webhook.secret }, body: JSON.stringify(update),
    });
    await res.text();
    return res.status;
  }

  const keyboardProblem = (markup: unknown): string | null => {
    const rows = (markup as { inline_keyboard?: unknown })?.inline_keyboard;
    if (!Array.isArray(rows)) return 'Bad Request: can\'t parse reply keyboard markup JSON object';
    for (const row of rows) {
      for (const b of row as Array<Record<string, string>>) {
        if (!b.text) return 'Bad Request: text buttons are unallowed in the inline keyboard';
        if (b.callback_data !== undefined && (Buffer.byteLength(b.callback_data) < 1 || Buffer.byteLength(b.callback_data) > 64)) return 'Bad Request: BUTTON_DATA_INVALID';
        if (b.url !== undefined && !/^https?:\/\//.test(b.url)) return 'Bad Request: inline keyboard button URL is invalid';
      }
    }
    return null;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const ok = (result: unknown) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
      const fail = (code: number, description: string) => {
        sim.refusals.push(`${req.url?.replace(sim.token, '<token>')}: ${description}`);
        res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: code, description }));
      };
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!m || m[1] !== sim.token) return fail(401, 'Unauthorized');
      let body: Record<string, any>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, any>;
      } catch {
        return fail(400, 'Bad Request: can\'t parse JSON');
      }
      switch (m[2]) {
        case 'getMe': return ok({ id: 1, is_bot: true, first_name: 'AlertFlow', username: sim.username });
        case 'setWebhook':
          if (!/^https:\/\//.test(String(body.url))) return fail(400, 'Bad Request: bad webhook: HTTPS url must be provided for webhook');
          if (body.secret_token !== undefined && !SECRET.test(String(body.secret_token))) return fail(400, 'Bad Request: secret token contains unallowed characters');
          sim.webhook = { url: body.url, secret: body.secret_token };
          return ok(true);
        case 'sendMessage': {
          const chat = String(body.chat_id);
          if (!sim.chats.has(chat)) return fail(400, 'Bad Request: chat not found');
          if (typeof body.text !== 'string' || body.text.length < 1 || body.text.length > 4096) return fail(400, 'Bad Request: message is too long');
          if (body.parse_mode !== undefined) return fail(400, 'Bad Request: this test expects plain text');
          const problem = body.reply_markup === undefined ? null : keyboardProblem(body.reply_markup);
          if (problem) return fail(400, problem);
          const msg: TgMessage = { chatId: chat, messageId: ++messageId, text: body.text, keyboard: body.reply_markup?.inline_keyboard ?? [], edits: 0 };
          sim.messages.push(msg);
          return ok({ message_id: msg.messageId, date: 0, chat: { id: Number(chat), type: 'private' }, text: msg.text });
        }
        case 'editMessageText': {
          const msg = sim.messages.find((x) => x.chatId === String(body.chat_id) && x.messageId === body.message_id);
          if (!msg) return fail(400, 'Bad Request: message to edit not found');
          const keyboard = body.reply_markup?.inline_keyboard ?? [];
          if (msg.text === body.text && JSON.stringify(msg.keyboard) === JSON.stringify(keyboard)) {
            return res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 400, description: 'Bad Request: message is not modified' }));
          }
          Object.assign(msg, { text: body.text, keyboard, edits: msg.edits + 1 });
          return ok({ message_id: msg.messageId, chat: { id: Number(msg.chatId) }, text: msg.text });
        }
        case 'answerCallbackQuery':
          if (!sent.has(String(body.callback_query_id))) return fail(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
          if (String(body.text ?? '').length > 200) return fail(400, 'Bad Request: MESSAGE_TOO_LONG');
          sim.answers.push({ id: body.callback_query_id, text: body.text ?? '' });
          return ok(true);
        default: return fail(404, 'Not Found');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sim.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return sim;
}
