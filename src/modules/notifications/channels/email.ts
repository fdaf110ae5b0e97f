import type { Static } from 'typebox';
import type { MailMessage } from '../../../infra/mailer.ts';
import { errorSummary } from '../../../lib/logger.ts';
import { emailHtml, emailSubject, emailText, escapeHtml, messageId, oneLine, smtpCode, smtpOutcome, type MessageContext } from '../notifications-fns.ts';
import { isNotice, PermanentFailure, targetSchema, textField, type Channel, type ChannelDeps, type Message, type PageMessage, type SendResult } from './channel.ts';

const Target = targetSchema({ to: textField({ label: 'Email address', description: 'One address.', format: 'email', maxLength: 320 }) });
type Target = Static<typeof Target>;

export const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`${what} timed out after ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
};

/** The message context the email and webhook bodies are built from. */
export const messageContext = (page: PageMessage): MessageContext => ({
  alert: page.alert,
  incident: page.incident,
  workflow: page.workflow ?? null,
  alertUrl: page.alertUrl,
  acknowledgeUrl: page.acknowledgeUrl ?? null,
  resolveUrl: page.resolveUrl ?? null,
});

/**
 * Sends one email: an SMTP 5xx is final, a 4xx or a lost connection is retried (smtpOutcome); a server that
 * accepted it but rejected some recipients is `sent`, with those named as the error line.
 */
async function sendMail(deps: ChannelDeps, message: Omit<MailMessage, 'from'>): Promise<SendResult> {
  if (!deps.mailer) throw new PermanentFailure('Email is not configured: set SMTP_URL');
  try {
    const info = await withTimeout(deps.mailer.send({ from: deps.smtpFrom, ...message }), deps.smtpTimeoutMs, 'SMTP delivery');
    const rejected = info.rejected.length ? `Rejected by the server: ${info.rejected.join(', ')}` : null;
    return { outcome: 'sent', error: rejected, responseStatus: smtpCode(info.response) };
  } catch (err) {
    const code = (err as { responseCode?: unknown }).responseCode;
    return { outcome: smtpOutcome(err), error: `SMTP: ${errorSummary(err).message ?? 'failed'}`, responseStatus: typeof code === 'number' ? code : null };
  }
}

/** The email of a message: a page's subject, text and HTML bodies, or a notice's. */
export function emailOf(message: Message, baseUrl: string): Omit<MailMessage, 'from' | 'to'> {
  const ids = { messageId: messageId(message.deliveryId, baseUrl), headers: { 'X-AlertFlow-Delivery': message.deliveryId } };
  if (isNotice(message)) {
    return { subject: oneLine(message.subject, 250), text: `${message.text}\n`, html: `<p style="white-space:pre-wrap">${escapeHtml(message.text)}</p>`, ...ids };
  }
  const ctx = messageContext(message);
  return {
    subject: emailSubject(message.alert, message.subject, message.incident),
    text: emailText(ctx),
    html: emailHtml(ctx),
    ...ids,
    headers: { ...ids.headers, 'X-AlertFlow-Alert': message.alert.id },
  };
}

/**
 * Email over SMTP to one address. (A delivery queued by an earlier version for a workflow email action may
 * name several, comma-separated: they get one email, as they would have.)
 */
export const emailChannel: Channel<Target> = {
  label: 'Email',
  about: 'An email over SMTP (SMTP_URL) with the alert\'s description, labels and links.',
  uses: ['contact', 'escalation'],
  target: Target,
  describe: (t) => t.to,
  name: (t) => t.to,
  host: () => null,
  attemptMs: (deps) => deps.smtpTimeoutMs,
  render: (message) => emailOf(message, 'http://localhost'),
  send: (deps, message, t) => sendMail(deps, { to: t.to.split(',').map((s) => s.trim()).filter(Boolean), ...emailOf(message, deps.baseUrl) }),
};
