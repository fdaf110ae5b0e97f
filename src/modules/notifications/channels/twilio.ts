import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { TwilioConfig } from '../../../config.ts';
import { errorSummary } from '../../../lib/logger.ts';
import { PermanentFailure, textField, type ChannelDeps, type SendResult } from './channel.ts';
import { formField, refused, type InboundReply, type InboundRequest } from './inbound.ts';

/**
 * Twilio, shared by the SMS and voice channels: the REST calls that send (Messages and Calls of the 2010-04-01
 * API, form-encoded, HTTP basic auth with the account SID and auth token), the `X-Twilio-Signature` every
 * request Twilio makes to us carries, and TwiML. Shapes as Twilio's OpenAPI document (twilio/twilio-oai,
 * spec/json/twilio_api_v2010.json) and its webhook security page describe them.
 */

export const E164 = '^\\+[1-9][0-9]{6,14}$';
export const numberField = (description: string) =>
  textField({ label: 'Phone number', description: `${description} In E.164 form: + and the country code, e.g. +4915112345678.`, pattern: E164, maxLength: 16 });

/** Off until the operator configures Twilio, and says so. */
export const twilioOff = (deps: ChannelDeps): string | null =>
  deps.providers.twilio ? null : 'the operator has not configured Twilio (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM_NUMBER)';

export function twilioOf(deps: ChannelDeps): TwilioConfig {
  const t = deps.providers.twilio;
  if (!t) throw new PermanentFailure(`Not sent: ${twilioOff(deps) as string}`);
  return t;
}

/** The number a destination's pages come from: always the same one of the pool, so its replies come back to it. */
export function fromNumberFor(t: TwilioConfig, to: string): string {
  const i = createHash('sha256').update(to).digest().readUInt32BE(0) % t.fromNumbers.length;
  return t.fromNumbers[i] as string;
}

/**
 * `X-Twilio-Signature`: HMAC-SHA1, keyed with the auth token, of the full URL Twilio called followed by
 * every POST parameter sorted by name, each name immediately followed by its value; base64.
 */
export function twilioSignature(authToken: string, url: string, params: ReadonlyArray<readonly [string, string]>): string {
  const sorted = [...params].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return createHmac('sha1', authToken).update(url + sorted.map(([k, v]) => k + v).join('')).digest('base64');
}

/** Whether a request is Twilio's, for this account: the signature (compared in constant time) and the AccountSid it names. */
export function fromTwilio(t: TwilioConfig, req: Pick<InboundRequest, 'url' | 'headers' | 'form'>): boolean {
  const given = Buffer.from(req.headers['x-twilio-signature'] ?? '');
  const expected = Buffer.from(twilioSignature(t.authToken, req.url, req.form));
  return given.length === expected.length && timingSafeEqual(given, expected) && formField(req, 'AccountSid') === t.accountSid;
}

/** Verifies a request before its handler runs: 403, saying nothing more, when it is not Twilio's. */
export async function twilioHook(deps: ChannelDeps, req: InboundRequest, handle: (t: TwilioConfig) => Promise<InboundReply>): Promise<InboundReply> {
  const t = deps.providers.twilio;
  if (!t) return refused(404, 'Twilio is not configured');
  if (!fromTwilio(t, req)) return refused(403, 'Invalid signature');
  return handle(t);
}

/** Creates a Message or a Call. 2xx: sent, with the SID; 429 and 5xx, or no answer: retried; another 4xx: final, with Twilio's code and message. */
export async function twilioCreate(deps: ChannelDeps, resource: 'Messages' | 'Calls', form: Record<string, string>): Promise<SendResult> {
  const t = twilioOf(deps);
  const url = `${t.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(t.accountSid)}/${resource}.json`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${t.accountSid}:${t.authToken}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        'User-Agent': deps.userAgent,
      },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.webhookTimeoutMs),
    });
  } catch (err) {
    const e = errorSummary(err);
    return { outcome: 'retry', error: `Twilio: ${e.code ? `${String(e.code)}: ` : ''}${e.message ?? 'request failed'}`, responseStatus: null };
  }
  const body = (await res.json().catch(() => ({}))) as { sid?: unknown; code?: unknown; message?: unknown };
  if (res.ok && typeof body.sid === 'string') return { outcome: 'sent', error: null, responseStatus: res.status, ref: body.sid };
  const why = `Twilio ${typeof body.code === 'number' ? body.code : res.status}: ${typeof body.message === 'string' ? body.message : res.statusText}`;
  return { outcome: res.status === 429 || res.status >= 500 || res.ok ? 'retry' : 'failed', error: why, responseStatus: res.status };
}

/** Text as TwiML element content: XML-escaped, and without the characters XML 1.0 cannot carry at all. */
export const xmlText = (s: string): string =>
  s.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);

export const twiml = (verbs: string): InboundReply => ({ status: 200, type: 'xml', body: `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs}</Response>` });

/** Plain text for a phone: no control characters, whitespace collapsed to single spaces. */
export const flat = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();

/** The callback URL of one of our hooks for one notification (Twilio signs it, query included). */
export const hookUrl = (deps: ChannelDeps, type: string, hook: string, notificationId: string, extra: Record<string, string> = {}): string =>
  `${deps.baseUrl}/api/inbound/channels/${type}/${hook}?${new URLSearchParams({ n: notificationId, ...extra }).toString()}`;
