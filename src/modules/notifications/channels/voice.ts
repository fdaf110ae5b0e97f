import type { Static } from 'typebox';
import { clip, isNotice, pageParts, targetSchema, type Channel, type ChannelDeps, type Message } from './channel.ts';
import { formField, refused, sameSend, type AnswerOutcome } from './inbound.ts';
import { flat, fromNumberFor, hookUrl, numberField, twilioCreate, twilioHook, twilioOff, twiml, twilioOf, xmlText } from './twilio.ts';

const Target = targetSchema({ number: numberField('The number to call; it pages only once you confirm the code read to you.') });
type Target = Static<typeof Target>;

/** Twilio takes inline TwiML of up to 4,000 characters; what a call reads is kept well below. */
export const VOICE_LIMITS = { title: 300, twiml: 4000, repeats: 3 } as const;
const KEYS = { '4': 'acknowledge', '6': 'resolve' } as const;
const PROMPT = 'Press 4 to acknowledge, 6 to resolve.';

/** A `<Gather>` of one key whose answer comes to our `gather` hook; `repeat` counts the times it was asked. */
const gather = (deps: ChannelDeps, id: string, repeat: number, say: string): string =>
  `<Gather input="dtmf" numDigits="1" timeout="8" method="POST" action="${xmlText(hookUrl(deps, 'voice', 'gather', id, { r: String(repeat) }))}"><Say>${xmlText(say)}</Say></Gather>`;

/**
 * What a call says: a page is read, then one key is gathered (4 acknowledges, 6 resolves), asked twice; no key
 * (nobody, or a voicemail) ends the call unanswered and the escalation goes on. A notice is read twice.
 */
export function callTwiml(deps: ChannelDeps, message: Message): string {
  if (isNotice(message)) {
    const say = `<Say>${xmlText(flat(`${message.subject}. ${message.text}`).slice(0, 1500))}</Say>`;
    return `<Response>${say}<Pause length="1"/>${say}</Response>`;
  }
  const p = pageParts(message);
  const intro = `AlertFlow page. ${p.severity}. ${clip(flat(p.title), VOICE_LIMITS.title)}.`;
  if (!message.incident) return `<Response><Say>${xmlText(intro)}</Say><Pause length="1"/><Say>${xmlText(intro)}</Say></Response>`;
  return `<Response>${gather(deps, message.deliveryId, 0, `${intro} ${PROMPT}`)}${gather(deps, message.deliveryId, 1, `Again: ${intro} ${PROMPT}`)}<Say>No key was pressed. Goodbye.</Say><Hangup/></Response>`;
}

function said(r: AnswerOutcome, action: 'acknowledge' | 'resolve'): string {
  if (r.state === 'gone') return 'That incident no longer exists.';
  if (r.state === 'duplicate') return 'Already done.';
  if (r.state === 'already') return `Incident ${r.incident.number} is already ${r.incident.status}. Nothing changed.`;
  return `Incident ${r.incident.number} ${action === 'acknowledge' ? 'acknowledged' : 'resolved'}. The escalation has stopped.`;
}

/** The same number, however Twilio spells it back (it sends E.164). */
const sameNumber = (a: string, b: string): boolean => a.replace(/[^\d+]/g, '') === b.replace(/[^\d+]/g, '');

/** Phone calls through Twilio: the page is read aloud; 4 acknowledges, 6 resolves. One call a second per account, queued. */
export const voiceChannel: Channel<Target> = {
  label: 'Voice call',
  about: 'A phone call through the operator\'s Twilio account that reads the page; press 4 to acknowledge, 6 to resolve.',
  uses: ['contact'],
  target: Target,
  describe: (t) => t.number,
  name: (t) => `Call ${t.number}`,
  host: () => null,
  unavailable: twilioOff,
  verification: 'code',
  pace: (_t, deps) => (deps.providers.twilio ? { key: `twilio-calls:${deps.providers.twilio.accountSid}`, everyMs: 1000 } : null),
  render: (message) => callTwiml({ baseUrl: 'http://localhost' } as ChannelDeps, message),
  send: (deps, message, t) => twilioCreate(deps, 'Calls', {
    To: t.number, From: fromNumberFor(twilioOf(deps), t.number), Twiml: callTwiml(deps, message), Timeout: '30',
    StatusCallback: hookUrl(deps, 'voice', 'status', message.deliveryId),
  }),
  inbound: {
    /** The key pressed on a page's call. */
    gather: {
      body: 'form',
      handle: (ctx, req) => twilioHook(ctx.deps, req, async () => {
        const page = await ctx.page(req.query.n ?? '');
        const callSid = formField(req, 'CallSid');
        if (!page || !sameSend(page, callSid) || !sameNumber(page.target, formField(req, 'To'))) return refused(404, 'No such call');
        const digit = formField(req, 'Digits');
        const action = Object.hasOwn(KEYS, digit) ? KEYS[digit as keyof typeof KEYS] : null;
        const repeat = Number(req.query.r ?? '0') || 0;
        if (!action) {
          if (repeat + 1 >= VOICE_LIMITS.repeats) return twiml('<Say>Goodbye.</Say><Hangup/>');
          return twiml(`<Say>That key does nothing.</Say>${gather(ctx.deps, page.id, repeat + 1, PROMPT)}<Say>No key was pressed. Goodbye.</Say><Hangup/>`);
        }
        const r = await ctx.answer({ page, action, userId: page.recipientId, eventKey: `${callSid}:${digit}`, via: `key ${digit} on a call to ${page.target}` });
        return twiml(`<Say>${xmlText(said(r, action))} Goodbye.</Say><Hangup/>`);
      }),
    },
    /** Twilio's status callback of a call: one nobody answered (busy, no answer, failed) shows in the delivery log. */
    status: {
      body: 'form',
      handle: (ctx, req) => twilioHook(ctx.deps, req, async () => {
        const page = await ctx.page(req.query.n ?? '');
        if (!page || !sameSend(page, formField(req, 'CallSid'))) return refused(404, 'No such call');
        const status = formField(req, 'CallStatus');
        const unanswered = ['busy', 'no-answer', 'failed', 'canceled'].includes(status);
        await ctx.providerStatus(page, status, unanswered ? `The call was not answered (${status})` : null);
        return { status: 200, type: 'text', body: '' };
      }),
    },
  },
};
