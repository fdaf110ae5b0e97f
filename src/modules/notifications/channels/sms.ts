import type { Static } from 'typebox';
import { clip, isNotice, pageParts, targetSchema, type Channel, type Message } from './channel.ts';
import { formField, refused, sameSend, type AnswerOutcome, type InboundReply } from './inbound.ts';
import { flat, fromNumberFor, hookUrl, numberField, twilioCreate, twilioHook, twilioOff, twiml, twilioOf, xmlText } from './twilio.ts';

const Target = targetSchema({ number: numberField('The mobile number to text; it pages only once you confirm the code sent to it.') });
type Target = Static<typeof Target>;

/** Two GSM-7 segments: a page fits in two texts however long its title. */
export const SMS_LIMITS = { chars: 306 } as const;

/** The reply grammar: the page's code acknowledges, the code and R resolves (case, spaces and a leading # do not matter). */
export function parseReply(body: string): { code: string; action: 'acknowledge' | 'resolve' } | null {
  const m = /^#?(\d{1,6})[ \t]*(r)?$/i.exec(body.trim());
  return m ? { code: m[1] as string, action: m[2] ? 'resolve' : 'acknowledge' } : null;
}

export const HELP = 'Reply with the code of a page to acknowledge it (e.g. 12), or the code and R to resolve it (12R).';

export function smsText(message: Message): string {
  if (isNotice(message)) return clip(flat(`${message.subject}. ${message.text}`), SMS_LIMITS.chars);
  const p = pageParts(message);
  const code = message.replyCode;
  const ask = code ? ` Reply ${code} to acknowledge, ${code}R to resolve.` : ` ${message.alertUrl}`;
  const head = `AlertFlow [${p.severity.toUpperCase()}] `;
  return `${head}${clip(flat(p.title), Math.max(20, SMS_LIMITS.chars - head.length - ask.length))}${ask}`;
}

const text = (s: string): InboundReply => twiml(s === '' ? '' : `<Message>${xmlText(s)}</Message>`);

function said(r: AnswerOutcome, action: 'acknowledge' | 'resolve'): string {
  if (r.state === 'duplicate') return '';
  if (r.state === 'gone') return 'That incident no longer exists.';
  const name = `#${r.incident.number} ${flat(r.incident.title).slice(0, 80)}`;
  if (r.state === 'already') return `${name} is already ${r.incident.status}; nothing changed.`;
  return `${action === 'acknowledge' ? 'Acknowledged' : 'Resolved'} ${name}. The escalation has stopped.`;
}

/**
 * Text messages through Twilio. A page carries the incident's reply code: replying the code acknowledges,
 * the code and R resolves (docs: paging). One text a second per sending number, queued.
 */
export const smsChannel: Channel<Target> = {
  label: 'SMS',
  about: 'A text message through the operator\'s Twilio account; reply with the page\'s code to acknowledge it, the code and R to resolve it.',
  uses: ['contact'],
  target: Target,
  describe: (t) => t.number,
  name: (t) => `SMS ${t.number}`,
  host: () => null,
  unavailable: twilioOff,
  verification: 'code',
  replyCodes: { address: (t) => t.number },
  pace: (t, deps) => (deps.providers.twilio ? { key: `twilio-sms:${fromNumberFor(deps.providers.twilio, t.number)}`, everyMs: 1000 } : null),
  render: (message) => smsText(message),
  send: (deps, message, t) => twilioCreate(deps, 'Messages', {
    To: t.number, From: fromNumberFor(twilioOf(deps), t.number), Body: smsText(message), StatusCallback: hookUrl(deps, 'sms', 'status', message.deliveryId),
  }),
  inbound: {
    /** The messaging webhook of the Twilio numbers: a reply to a page. */
    reply: {
      body: 'form',
      handle: (ctx, req) => twilioHook(ctx.deps, req, async () => {
        const from = formField(req, 'From');
        const parsed = parseReply(formField(req, 'Body'));
        if (!parsed) return text(HELP);
        const page = await ctx.pageByReplyCode(from, parsed.code);
        if (!page) return text(`No page for this number has the code ${parsed.code} (codes last 24 hours). ${HELP}`);
        const r = await ctx.answer({ page, action: parsed.action, userId: page.recipientId, eventKey: formField(req, 'MessageSid'), via: `SMS reply from ${from}` });
        return text(said(r, parsed.action));
      }),
    },
    /** Twilio's status callback of a sent text: failed or undelivered ones show in the delivery log. */
    status: {
      body: 'form',
      handle: (ctx, req) => twilioHook(ctx.deps, req, async () => {
        const page = await ctx.page(req.query.n ?? '');
        if (!page || !sameSend(page, formField(req, 'MessageSid'))) return refused(404, 'No such message');
        const status = formField(req, 'MessageStatus');
        const code = formField(req, 'ErrorCode');
        await ctx.providerStatus(page, status, status === 'failed' || status === 'undelivered' ? `Twilio: ${status}${code ? ` (error ${code})` : ''}` : null);
        return { status: 200, type: 'text', body: '' };
      }),
    },
  },
};
