/** The mail thread (see threadedMailer in mailer.ts): sends the main thread's emails through one SMTP pool. */
import { workerData } from 'node:worker_threads';
import { serveThread } from '../lib/thread.ts';
import { smtpMailer, type MailMessage } from './mailer.ts';

const { url, opts } = workerData as { url: string; opts: Parameters<typeof smtpMailer>[1] };
const mailer = await smtpMailer(url, opts);
serveThread((m: MailMessage) => mailer.send(m), () => mailer.close());
