import { sibling, threadClient } from '../lib/thread.ts';

export interface MailMessage {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** `<id@host>`: the same on every attempt of one notification, so receivers can drop a repeat. */
  messageId: string;
  headers?: Record<string, string>;
}

export interface MailResult {
  accepted: string[];
  rejected: string[];
  /** The server's last reply, e.g. `250 OK: queued as …`. */
  response: string;
}

/** Sends one email; rejects with nodemailer's error (with `responseCode` for SMTP replies, `code` otherwise). */
export interface Mailer {
  send(message: MailMessage): Promise<MailResult>;
  close(): void;
}

/** UTF-8 bytes per encoded word: base64 of 45 bytes is 60 characters, within RFC 2047's 75 per word. */
const WORD_BYTES = 45;

/**
 * The Subject as sent. An RFC 2047 encoded word (`=?utf-8?B?…?=`) in plain text is decoded by mail
 * clients, so a title could show as something else (`[RESOLVED]` on a firing page). A subject holding
 * `=?` is therefore sent wholly as encoded words, which decode to exactly the text written; any other
 * subject is left to nodemailer, which encodes non-ASCII text itself.
 */
export function encodeSubject(subject: string): string {
  if (!subject.includes('=?')) return subject;
  const words: string[] = [];
  let chunk = '';
  for (const ch of subject) {
    if (Buffer.byteLength(chunk + ch) > WORD_BYTES) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join(' ');
}

const address = (a: unknown): string => (typeof a === 'string' ? a : (a as { address?: string })?.address ?? String(a));

/**
 * Connections kept to the SMTP server at most: one per delivery that may send at once (`sends`), but no more than
 * relays commonly accept from one client before answering 421.
 */
const MAX_CONNECTIONS = 8;

/**
 * The SMTP mailer of `SMTP_URL` (`smtp://user:pass@host:587`, `smtps://…:465`; nodemailer's URL options
 * such as `?tls.rejectUnauthorized=false` apply). A pool of reused connections; STARTTLS when offered.
 * nodemailer is loaded only here, when SMTP_URL is set (as ioredis is only with REDIS_URL).
 */
export async function smtpMailer(url: string, opts: { timeoutMs?: number; sends?: number } = {}): Promise<Mailer> {
  const { default: nodemailer } = await import('nodemailer');
  const timeout = opts.timeoutMs ?? 15_000;
  const transport = nodemailer.createTransport({
    url,
    // Connections are kept and reused: opening one per email costs a TCP handshake, the server's greeting
    // and EHLO per page (over 100 ms with some servers), which caps a burst of pages.
    pool: true,
    maxConnections: Math.min(MAX_CONNECTIONS, opts.sends ?? 4),
    maxMessages: 100,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout * 2,
    dnsTimeout: timeout,
  });
  return {
    async send(m: MailMessage): Promise<MailResult> {
      const info = await transport.sendMail({
        from: m.from,
        to: m.to,
        subject: encodeSubject(m.subject),
        text: m.text,
        html: m.html,
        messageId: m.messageId,
        ...(m.headers && { headers: m.headers }),
      });
      return {
        accepted: (info.accepted ?? []).map(address),
        rejected: (info.rejected ?? []).map(address),
        response: String(info.response ?? ''),
      };
    },
    close: () => transport.close(),
  };
}

/**
 * smtpMailer on a thread of its own (mail-worker.ts), started with the first email: composing a message's MIME parts
 * and speaking SMTP cost ~1 ms of CPU an email, which the second core now spends instead of the event loop that
 * claims and records every page (docs/benchmarks.md, "Alert to page: latency and the knee").
 */
export function threadedMailer(url: string, opts: { timeoutMs?: number; sends?: number } = {}): Mailer {
  const thread = threadClient<MailMessage, MailResult>(sibling('mail-worker', import.meta.url), { url, opts });
  return { send: thread.run, close: () => void thread.close() };
}
