import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Twilio for tests, after GoAlert's devtools/mocktwilio (target/goalert), written from Twilio's own
 * documents: the 2010-04-01 REST API (Messages.json, Calls.json: form-encoded, HTTP basic auth, 201 with a
 * SID; errors as `{code, message, more_info, status}`), status callbacks, incoming messages, and calls run by
 * a small TwiML interpreter (`<Say>`, `<Pause>`, `<Gather>` of DTMF digits posting to its `action`, `<Hangup>`).
 * Every request it makes to the app carries `X-Twilio-Signature` (HMAC-SHA1 of the URL and the sorted
 * parameters, base64), computed here independently of the app's code.
 */

export interface SimMessage {
  sid: string;
  from: string;
  to: string;
  body: string;
  statusCallback: string | null;
  /** When the simulator accepted it (ms, wall clock). */
  at: number;
}

export interface SimCall {
  sid: string;
  from: string;
  to: string;
  twiml: string;
  statusCallback: string | null;
  at: number;
  /** What was said so far, in order. */
  said: string[];
  state: 'ringing' | 'gathering' | 'done';
}

export interface TwilioSim {
  url: string;
  accountSid: string;
  authToken: string;
  fromNumbers: string[];
  messages: SimMessage[];
  calls: SimCall[];
  /** Requests refused with their reason (bad auth, bad parameters): a test asserts there were none. */
  refusals: string[];
  /**
   * Where the app is: `publicUrl` is its BASE_URL (the URLs it gives Twilio, and what Twilio signs), `appUrl`
   * where it actually listens (as a proxy would forward).
   */
  publicUrl: string;
  appUrl: string;
  /** A number the carrier cannot reach: texts to it end `undelivered` (error 30003). */
  unreachable: Set<string>;
  /** Signs as Twilio does (for tests that forge or replay requests). */
  sign(url: string, params: Record<string, string>): string;
  /** Posts a form to the app, signed (or with `signature` given instead). */
  post(path: string, params: Record<string, string>, signature?: string): Promise<{ status: number; body: string }>;
  /** An incoming text from `from` to one of our numbers; the app's TwiML answer, and the text of its `<Message>`. */
  text(from: string, body: string, opts?: { to?: string; sid?: string }): Promise<{ status: number; reply: string }>;
  /** Waits for a call to `to` (the next one not yet taken). */
  nextCall(to: string, timeoutMs?: number): Promise<SimCall>;
  /** Answers a ringing call: runs its TwiML until a `<Gather>` waits for keys (or the call ends). */
  answer(call: SimCall): Promise<void>;
  /** Presses keys at the waiting `<Gather>`: posts them to its action and runs the TwiML that comes back. */
  press(call: SimCall, digits: string): Promise<void>;
  /** Nobody presses anything: each `<Gather>` times out and the document runs on. */
  silence(call: SimCall): Promise<void>;
  /** Nobody answers the phone: the status callback says `no-answer`. */
  noAnswer(call: SimCall): Promise<void>;
  close(): Promise<void>;
}

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;
const E164 = /^\+[1-9]\d{6,14}$/;

/** Twilio's signature scheme, from its webhook security page: URL, then each parameter name and value in name order. */
function signature(token: string, url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((k) => k + params[k]).join('');
  return createHmac('sha1', token).update(data).digest('base64');
}

const decode = (s: string) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] as string);

interface Verb { name: string; attrs: Record<string, string>; text: string; children: Verb[] }

/** The TwiML subset our pages use, read strictly: an unknown verb or unbalanced markup is a refusal, not a guess. */
function parseTwiml(xml: string): Verb[] {
  const body = xml.replace(/^<\?xml[^>]*\?>/, '').trim();
  const tokens = body.match(/<[^>]+>|[^<]+/g) ?? [];
  const root: Verb = { name: '#root', attrs: {}, text: '', children: [] };
  const stack: Verb[] = [root];
  for (const t of tokens) {
    const top = stack[stack.length - 1] as Verb;
    if (t.startsWith('</')) {
      if (stack.pop()?.name !== t.slice(2, -1)) throw new Error(`unbalanced TwiML at ${t}`);
    } else if (t.startsWith('<')) {
      const m = /^<([A-Za-z]+)((?:\s+[A-Za-z]+="[^"]*")*)\s*(\/?)>$/.exec(t);
      if (!m) throw new Error(`malformed TwiML tag ${t}`);
      const attrs = Object.fromEntries([...(m[2] as string).matchAll(/([A-Za-z]+)="([^"]*)"/g)].map((a) => [a[1] as string, decode(a[2] as string)]));
      const verb: Verb = { name: m[1] as string, attrs, text: '', children: [] };
      if (!['Response', 'Say', 'Pause', 'Gather', 'Hangup', 'Message', 'Redirect'].includes(verb.name)) throw new Error(`unknown TwiML verb ${verb.name}`);
      top.children.push(verb);
      if (m[3] !== '/') stack.push(verb);
    } else if (t.trim() !== '') {
      top.text += decode(t);
    }
  }
  if (stack.length !== 1) throw new Error('unclosed TwiML');
  const response = root.children[0];
  if (root.children.length !== 1 || response?.name !== 'Response') throw new Error('TwiML must be one <Response>');
  return response.children;
}

export async function startTwilioSim(opts: { fromNumbers?: string[]; publicUrl?: string; appUrl?: string } = {}): Promise<TwilioSim> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const fromNumbers = opts.fromNumbers ?? ['+15005550006'];
  const waiting = new Map<SimCall, { verbs: Verb[]; gather: Verb | null }>();
  const callWaiters: Array<{ to: string; resolve: (c: SimCall) => void }> = [];
  const taken = new Set<string>();

  const sim: TwilioSim = {
    url: '', accountSid, authToken, fromNumbers, messages: [], calls: [], refusals: [], publicUrl: opts.publicUrl ?? '', appUrl: opts.appUrl ?? '', unreachable: new Set(),
    sign: (url, params) => signature(authToken, url, params),
    async post(path, params, sig) {
      const url = path.startsWith('http') ? path : `${sim.publicUrl}${path}`;
      if (!url.startsWith(sim.publicUrl)) throw new Error(`${url} is not the app's`);
      const res = await fetch(`${sim.appUrl}${url.slice(sim.publicUrl.length)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': sig ?? signature(authToken, url, params), 'User-Agent': 'TwilioProxy/1.1' },
        body: new URLSearchParams(params).toString(),
      });
      return { status: res.status, body: await res.text() };
    },
    async text(from, body, o = {}) {
      const params = { AccountSid: accountSid, MessageSid: o.sid ?? sid('SM'), SmsSid: o.sid ?? sid('SM'), From: from, To: o.to ?? fromNumbers[0] as string, Body: body, NumMedia: '0', ApiVersion: '2010-04-01' };
      const r = await sim.post('/api/inbound/channels/sms/reply', params);
      const reply = r.status === 200 ? parseTwiml(r.body).filter((v) => v.name === 'Message').map((v) => v.text).join('\n') : '';
      return { status: r.status, reply };
    },
    nextCall(to, timeoutMs = 20_000) {
      const ready = sim.calls.find((c) => c.to === to && !taken.has(c.sid));
      if (ready) {
        taken.add(ready.sid);
        return Promise.resolve(ready);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no call to ${to} within ${timeoutMs} ms`)), timeoutMs);
        callWaiters.push({ to, resolve: (c) => { clearTimeout(timer); taken.add(c.sid); resolve(c); } });
      });
    },
    async answer(call) {
      await run(call, parseTwiml(call.twiml));
    },
    async press(call, digits) {
      const w = waiting.get(call);
      if (!w?.gather) throw new Error('no <Gather> is waiting for keys');
      waiting.delete(call);
      const action = w.gather.attrs.action as string;
      const r = await sim.post(action, { ...callParams(call, 'in-progress'), Digits: digits, FinishedOnKey: '' });
      if (r.status !== 200) throw new Error(`the Gather action answered ${r.status}: ${r.body}`);
      await run(call, parseTwiml(r.body));
    },
    async silence(call) {
      const w = waiting.get(call);
      if (!w) throw new Error('the call is not waiting');
      waiting.delete(call);
      await run(call, w.verbs);
    },
    async noAnswer(call) {
      call.state = 'done';
      await callback(call.statusCallback, { ...callParams(call, 'no-answer'), CallDuration: '0' });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const callParams = (c: SimCall, status: string) => ({ AccountSid: accountSid, CallSid: c.sid, From: c.from, To: c.to, Called: c.to, Caller: c.from, CallStatus: status, Direction: 'outbound-api', ApiVersion: '2010-04-01' });

  async function callback(url: string | null, params: Record<string, string>): Promise<void> {
    if (!url) return;
    const r = await sim.post(url, params);
    if (r.status >= 300) sim.refusals.push(`callback ${url} answered ${r.status}: ${r.body}`);
  }

  /** Runs verbs until a Gather waits for keys or the document ends (the call then completes). */
  async function run(call: SimCall, verbs: Verb[]): Promise<void> {
    for (let i = 0; i < verbs.length; i++) {
      const v = verbs[i] as Verb;
      if (v.name === 'Say') call.said.push(v.text.trim());
      else if (v.name === 'Hangup') break;
      else if (v.name === 'Gather') {
        if (v.attrs.numDigits !== '1' || !v.attrs.action) throw new Error('our Gather asks for one key with an action');
        for (const c of v.children) if (c.name === 'Say') call.said.push(c.text.trim());
        call.state = 'gathering';
        waiting.set(call, { verbs: verbs.slice(i + 1), gather: v });
        return;
      }
    }
    call.state = 'done';
    await callback(call.statusCallback, { ...callParams(call, 'completed'), CallDuration: '20' });
  }

  const refuse = (res: http.ServerResponse, status: number, code: number, message: string) => {
    sim.refusals.push(`${code}: ${message}`);
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const base = `/2010-04-01/Accounts/${accountSid}/`;
      const auth = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
      if (req.method !== 'POST' || !req.url?.startsWith(base)) return refuse(res, 404, 20404, `The requested resource ${req.url} was not found`);
      if (auth !== `${accountSid}:${authToken}`) return refuse(res, 401, 20003, 'Authenticate');
      if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return refuse(res, 400, 400, 'Form-encoded parameters expected');
      const p = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      const resource = req.url.slice(base.length);
      if (!E164.test(p.To ?? '')) return refuse(res, 400, 21211, `The 'To' number ${p.To ?? ''} is not a valid phone number.`);
      if (!fromNumbers.includes(p.From ?? '')) return refuse(res, 400, 21606, `The 'From' phone number ${p.From ?? ''} is not a valid, SMS-capable inbound phone number or short code for your account.`);
      if (resource === 'Messages.json') {
        if (!p.Body || p.Body.length > 1600) return refuse(res, 400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
        const m: SimMessage = { sid: sid('SM'), from: p.From as string, to: p.To as string, body: p.Body, statusCallback: p.StatusCallback ?? null, at: Date.now() };
        sim.messages.push(m);
        res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify({ sid: m.sid, account_sid: accountSid, from: m.from, to: m.to, body: m.body, status: 'queued', direction: 'outbound-api', api_version: '2010-04-01', num_segments: '1' }));
        const failed = sim.unreachable.has(m.to);
        setImmediate(() => {
          void callback(m.statusCallback, { AccountSid: accountSid, MessageSid: m.sid, SmsSid: m.sid, From: m.from, To: m.to, MessageStatus: failed ? 'undelivered' : 'delivered', ...(failed && { ErrorCode: '30003' }), ApiVersion: '2010-04-01' });
        });
        return undefined;
      }
      if (resource === 'Calls.json') {
        if (!p.Twiml && !p.Url) return refuse(res, 400, 21205, 'Url or Twiml is required');
        if (p.Twiml && p.Twiml.length > 4000) return refuse(res, 400, 21205, 'Twiml exceeds 4000 characters');
        try {
          parseTwiml(p.Twiml ?? '');
        } catch (err) {
          return refuse(res, 400, 12100, `Document parse failure: ${(err as Error).message}`);
        }
        const c: SimCall = { sid: sid('CA'), from: p.From as string, to: p.To as string, twiml: p.Twiml as string, statusCallback: p.StatusCallback ?? null, at: Date.now(), said: [], state: 'ringing' };
        sim.calls.push(c);
        res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify({ sid: c.sid, account_sid: accountSid, from: c.from, to: c.to, status: 'queued', direction: 'outbound-api', api_version: '2010-04-01' }));
        const i = callWaiters.findIndex((w) => w.to === c.to);
        if (i >= 0) callWaiters.splice(i, 1)[0]?.resolve(c);
        return undefined;
      }
      return refuse(res, 404, 20404, `The requested resource ${req.url} was not found`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sim.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return sim;
}

/** The environment that points AlertFlow at the simulator. */
export const twilioEnv = (sim: TwilioSim): Record<string, string> => ({
  TWILIO_ACCOUNT_SID: sim.accountSid, TWILIO_AUTH_TOKEN: sim.authToken, TWILIO_FROM_NUMBER: sim.fromNumbers.join(','), TWILIO_API_URL: sim.url,
});
