import { Type, type Static } from 'typebox';
import type { MailMessage } from '../../../infra/mailer.ts';
import { errorSummary } from '../../../lib/logger.ts';
import { emailHtml, emailSubject, emailText, messageId, smtpCode, smtpOutcome, type MessageContext } from '../notifications-fns.ts';
import { PermanentFailure, type Channel, type ChannelDeps, type PageMessage, type SendResult } from './channel.ts';

const Target = Type.Object({ to: Type.String({ format: 'email', maxLength: 320, description: 'One address.' }) }, { additionalProperties: false });
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
export async function sendMail(deps: ChannelDeps, message: Omit<MailMessage, 'from'>): Promise<SendResult> {
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

export function emailPage(page: PageMessage, baseUrl: string, subject?: string): Omit<MailMessage, 'from' | 'to'> {
  const ctx = messageContext(page);
  return {
    subject: emailSubject(page.alert, subject),
    text: emailText(ctx),
    html: emailHtml(ctx),
    messageId: messageId(page.deliveryId, baseUrl),
    headers: { 'X-AlertFlow-Delivery': page.deliveryId, 'X-AlertFlow-Alert': page.alert.id },
  };
}

/** Email over SMTP to one address. */
export const emailChannel: Channel<Target> = {
  type: 'email',
  target: Target,
  describe: (t) => t.to,
  host: () => null,
  render: (page) => emailPage(page, 'http://localhost'),
  send: (deps, page, t) => sendMail(deps, { to: [t.to], ...emailPage(page, deps.baseUrl) }),
};
