import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Slack for tests, from Slack's own documents (the Web API OpenAPI document of slackapi/slack-api-specs;
 * "Verifying requests from Slack"; the block_actions payload reference): the Web API methods the Slack app
 * channel calls (auth.test, chat.postMessage, chat.update, chat.postEphemeral, users.info), checking the bot
 * token and the message shape against Block Kit's limits, and button presses sent to the app's interactivity
 * URL as Slack sends them: `payload=<JSON>` form-encoded, signed `v0=` HMAC-SHA256 with the app's signing secret.
 */

export interface SlackMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: Array<Record<string, any>>;
  /** How many times chat.update changed it. */
  updates: number;
}

export interface SlackSim {
  url: string;
  botToken: string;
  signingSecret: string;
  /** Members of the workspace: Slack user id → email. */
  users: Map<string, string>;
  /** Channels the bot may post in. */
  channels: Set<string>;
  messages: SlackMessage[];
  ephemeral: Array<{ channel: string; user: string; text: string }>;
  /** Calls refused (bad token, bad shape): a test asserts there were none. */
  refusals: string[];
  /** Where the app is (see TwilioSim): Slack posts to the interactivity URL it was given. */
  appUrl: string;
  publicUrl: string;
  /** The clock requests are signed with (seconds are what Slack sends). */
  now: () => number;
  /** A member presses a button of a message: the app's answer. `forge` signs with another secret; `age` (seconds) signs an old request. */
  press(message: SlackMessage, actionId: string, user: string, opts?: { interactivityUrl: string; forge?: boolean; ageSeconds?: number; actionTs?: string; raw?: { body: string; timestamp: string } }): Promise<{ status: number; body: string; request: { body: string; timestamp: string } }>;
  /** The buttons of a message now: their action ids. */
  buttons(message: SlackMessage): string[];
  close(): Promise<void>;
}

const LIMITS = { blocks: 50, header: 150, section: 3000, buttonText: 75, buttonValue: 2000, text: 40_000 } as const;

export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export async function startSlackSim(opts: { publicUrl: string; now?: () => number }): Promise<SlackSim> {
  let seq = 0;
  const sim: SlackSim = {
    url: '', botToken: `xoxb-${randomBytes(12).toString('hex')}`, signingSecret: randomBytes(16).toString('hex'),
    users: new Map(), channels: new Set(['C0ALERTS01']), messages: [], ephemeral: [], refusals: [], appUrl: '', publicUrl: opts.publicUrl,
    now: opts.now ?? Date.now,
    buttons: (m) => m.blocks.filter((b) => b.type === 'actions').flatMap((b) => (b.elements as Array<{ action_id: string }>).map((e) => e.action_id)),
    async press(message, actionId, user, o = { interactivityUrl: '' }) {
      const button = message.blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements as Array<Record<string, string>>).find((e) => e.action_id === actionId);
      if (!button && !o.raw) throw new Error(`no ${actionId} button on the message`);
      const payload = {
        type: 'block_actions', user: { id: user, username: user, team_id: 'T0TEAM' }, api_app_id: 'A0APP', token: 'deprecated-verification-token',
        container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
        trigger_id: `${Date.now()}.${randomBytes(4).toString('hex')}`, team: { id: 'T0TEAM', domain: 'acme' }, channel: { id: message.channel, name: 'alerts' },
        message: { ts: message.ts, text: message.text }, response_url: 'https://hooks.slack.com/actions/T0TEAM/1/x',
        actions: [{ action_id: actionId, block_id: 'b1', value: button?.value, type: 'button', action_ts: o.actionTs ?? `${Math.floor(sim.now() / 1000)}.${String(++seq).padStart(6, '0')}` }],
      };
      const body = o.raw?.body ?? new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const timestamp = o.raw?.timestamp ?? String(Math.floor(sim.now() / 1000) - (o.ageSeconds ?? 0));
      const sig = slackSignature(o.forge ? 'not-the-signing-secret' : sim.signingSecret, timestamp, body);
      if (!o.interactivityUrl.startsWith(sim.publicUrl)) throw new Error(`${o.interactivityUrl} is not the app's`);
      const res = await fetch(`${sim.appUrl}${o.interactivityUrl.slice(sim.publicUrl.length)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Slack-Request-Timestamp': timestamp, 'X-Slack-Signature': sig, 'User-Agent': 'Slackbot 1.0 (+https://api.slack.com/robots)' },
        body,
      });
      return { status: res.status, body: await res.text(), request: { body, timestamp } };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  /** Block Kit as Slack validates it: the error names are Slack's (`invalid_blocks`, `msg_too_long`). */
  function blockProblem(blocks: unknown): string | null {
    if (!Array.isArray(blocks) || blocks.length > LIMITS.blocks) return 'invalid_blocks';
    for (const b of blocks as Array<Record<string, any>>) {
      if (b.type === 'header' && (b.text?.type !== 'plain_text' || String(b.text.text).length > LIMITS.header)) return 'invalid_blocks';
      if (b.type === 'section' && String(b.text?.text ?? '').length > LIMITS.section) return 'invalid_blocks';
      if (b.type === 'actions') {
        const ids = (b.elements as Array<Record<string, any>>).map((e) => e.action_id);
        if (new Set(ids).size !== ids.length) return 'invalid_blocks';
        for (const e of b.elements as Array<Record<string, any>>) {
          if (e.type !== 'button' || String(e.text?.text).length > LIMITS.buttonText || (e.value !== undefined && String(e.value).length > LIMITS.buttonValue)) return 'invalid_blocks';
        }
      }
    }
    return null;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (body: Record<string, unknown>) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      const fail = (error: string) => {
        sim.refusals.push(`${req.url}: ${error}`);
        answer({ ok: false, error });
      };
      const url = new URL(req.url ?? '/', 'http://slack');
      if (req.headers.authorization !== `Bearer ${sim.botToken}`) return fail('invalid_auth');
      const method = url.pathname.slice(1);
      if (method === 'users.info') {
        const id = url.searchParams.get('user') ?? '';
        const email = sim.users.get(id);
        return email === undefined ? answer({ ok: false, error: 'user_not_found' }) : answer({ ok: true, user: { id, name: id, profile: { email, real_name: email.split('@')[0] } } });
      }
      if (req.method !== 'POST' || !String(req.headers['content-type']).startsWith('application/json')) return fail('invalid_arguments');
      let body: Record<string, any>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, any>;
      } catch {
        return fail('invalid_json');
      }
      if (method === 'auth.test') return answer({ ok: true, url: 'https://acme.slack.com/', team: 'Acme', user: 'alertflow', team_id: 'T0TEAM', user_id: 'U0BOT', bot_id: 'B0BOT' });
      if (method === 'chat.postMessage' || method === 'chat.update') {
        if (!sim.channels.has(body.channel)) return answer({ ok: false, error: 'channel_not_found' });
        if (typeof body.text !== 'string' || body.text.length > LIMITS.text) return fail('msg_too_long');
        const problem = blockProblem(body.blocks);
        if (problem) return fail(problem);
        if (method === 'chat.update') {
          const m = sim.messages.find((x) => x.channel === body.channel && x.ts === body.ts);
          if (!m) return answer({ ok: false, error: 'message_not_found' });
          Object.assign(m, { text: body.text, blocks: body.blocks, updates: m.updates + 1 });
          return answer({ ok: true, channel: m.channel, ts: m.ts, text: m.text });
        }
        const m: SlackMessage = { channel: body.channel, ts: `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`, text: body.text, blocks: body.blocks, updates: 0 };
        sim.messages.push(m);
        return answer({ ok: true, channel: m.channel, ts: m.ts, message: { text: m.text, type: 'message', bot_id: 'B0BOT' } });
      }
      if (method === 'chat.postEphemeral') {
        if (!sim.users.has(body.user) && !/^U/.test(String(body.user))) return answer({ ok: false, error: 'user_not_in_channel' });
        sim.ephemeral.push({ channel: body.channel, user: body.user, text: body.text });
        return answer({ ok: true, message_ts: `${Math.floor(Date.now() / 1000)}.000001` });
      }
      return fail('unknown_method');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sim.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return sim;
}
