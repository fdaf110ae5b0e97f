import { createHmac } from 'node:crypto';
import { iso, isoOrNull } from '../../lib/clock.ts';
import type { Alert } from '../alerts/alerts-schemas.ts';
import type { Incident } from '../incidents/incidents-schemas.ts';
import type { NotificationRow } from './notifications-repo.ts';
import type { AnswerRow } from './answers-repo.ts';
import type { Notification, NotificationAnswer } from './notifications-schemas.ts';

/**
 * Pure parts of notification delivery: the idempotency key, the webhook signature and body, the email's
 * subject and bodies, and which failures are worth retrying.
 */

/** One notification per alert, workflow and action, however often the job that sends it runs. */
export const idempotencyKey = (alertId: string, workflowId: string, actionIndex: number): string => `${alertId}:${workflowId}:${actionIndex}`;
/** A workflow action's page for an incident: the same for every alert that joins it, so the database lets one through. */
export const incidentKey = (incidentId: string, workflowId: string, actionIndex: number): string => `incident:${incidentId}:${workflowId}:${actionIndex}`;

/** `X-AlertFlow-Signature`: `sha256=` + hex HMAC-SHA256 of the exact body bytes, keyed with the action's secret. */
export const signature = (body: string | Buffer, secret: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** What a message is built from: the alert and incident as they are at send time. */
export interface MessageContext {
  alert: Alert;
  /** As the REST API shows it. */
  incident: Incident | null;
  /** Null for a page that no workflow action sent (an escalation step). */
  workflow: { id: string; name: string | null } | null;
  /** `${BASE_URL}/alerts/<id>`. */
  alertUrl: string;
  /** An escalation page's signed links. */
  acknowledgeUrl?: string | null;
  resolveUrl?: string | null;
}

export const alertUrl = (baseUrl: string, alertId: string): string => `${baseUrl}/alerts/${encodeURIComponent(alertId)}`;

/** The webhook body; `deliveryId` is the notification id, the same on every attempt. */
export function webhookBody(ctx: MessageContext, deliveryId: string, event: string, sentAt: string): string {
  return JSON.stringify({
    event,
    deliveryId,
    sentAt,
    alert: ctx.alert,
    incident: ctx.incident,
    workflow: ctx.workflow && { id: ctx.workflow.id, name: ctx.workflow.name },
    ...(ctx.acknowledgeUrl && { acknowledgeUrl: ctx.acknowledgeUrl }),
    ...(ctx.resolveUrl && { resolveUrl: ctx.resolveUrl }),
  });
}

export type Outcome = 'sent' | 'retry' | 'failed';

/** A webhook's answer: 2xx delivered; 5xx retried; anything else (4xx, and 3xx: redirects are not followed) is final. */
export function httpOutcome(status: number): Outcome {
  if (status >= 200 && status < 300) return 'sent';
  if (status >= 500 && status < 600) return 'retry';
  return 'failed';
}

/**
 * An SMTP failure: a 5xx reply is final, a 4xx reply is the server asking to try again later, and so is
 * anything that ended the connection (refused, timed out, TLS, DNS). A message nodemailer refuses before
 * sending (bad addresses, bad configuration) is final.
 */
export function smtpOutcome(err: unknown): Exclude<Outcome, 'sent'> {
  const e = err as { responseCode?: unknown; code?: unknown };
  if (typeof e?.responseCode === 'number') return e.responseCode >= 500 ? 'failed' : 'retry';
  if (e?.code === 'EENVELOPE' || e?.code === 'ECONFIG' || e?.code === 'ENOAUTH' || e?.code === 'EAUTH') return 'failed';
  return 'retry';
}

/** The SMTP reply code at the start of a server response (`250 OK …`), or null. */
export const smtpCode = (response: unknown): number | null => {
  const m = typeof response === 'string' ? /^(\d{3})\b/.exec(response) : null;
  return m ? Number(m[1]) : null;
};

/** The recipients of an email: the action's addresses and the on-call's, each once (case-insensitively). */
export function recipients(to: readonly string[] | undefined, onCall: string | null): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const address of [...(to ?? []), ...(onCall ? [onCall] : [])]) {
    const a = address.trim();
    if (a === '' || seen.has(a.toLowerCase())) continue;
    seen.add(a.toLowerCase());
    out.push(a);
  }
  return out;
}

/** One line, bounded: a header value cannot carry a line break (no header injection). */
export const oneLine = (s: string, max: number): string => {
  const line = s.replace(/[\r\n\t\v\f\u2028\u2029]+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * How many more alerts the page's incident holds besides its own, as every channel says it (`+499 alerts`): a storm
 * grouped into one incident pages once, and the pages that follow tell how big it grew. Null for one alert.
 */
export function moreAlerts(incident: Pick<Incident, 'alertCount'> | null): string | null {
  if (!incident || incident.alertCount <= 1) return null;
  const n = incident.alertCount - 1;
  return `+${n} alert${n === 1 ? '' : 's'}`;
}

const STATUS_PREFIX: Record<string, string> = { resolved: '[RESOLVED] ', acknowledged: '[ACKNOWLEDGED] ' };

/** `[CRITICAL] title` (with `[RESOLVED] ` / `[ACKNOWLEDGED] ` before it), or the action's own subject. */
export function emailSubject(alert: Alert, subject?: string, incident: Pick<Incident, 'alertCount'> | null = null): string {
  if (subject !== undefined && subject.trim() !== '') return oneLine(subject, 250);
  const more = moreAlerts(incident);
  return oneLine(`${STATUS_PREFIX[alert.status] ?? ''}[${alert.severity.toUpperCase()}] ${alert.title}${more ? ` (${more})` : ''}`, 250);
}

const isLink = (v: string): boolean => /^https?:\/\/[^\s]+$/i.test(v);

const sorted = (map: Record<string, string>): Array<[string, string]> =>
  Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Annotations that are http(s) URLs (runbook, dashboard, …) become links; the others are listed as text. */
function splitAnnotations(annotations: Record<string, string>): { links: Array<[string, string]>; notes: Array<[string, string]> } {
  const all = sorted(annotations);
  return { links: all.filter(([, v]) => isLink(v)), notes: all.filter(([, v]) => !isLink(v)) };
}

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function facts(ctx: MessageContext): Array<[string, string]> {
  const { alert, incident } = ctx;
  const rows: Array<[string, string]> = [['Severity', alert.severity], ['Status', alert.status]];
  if (alert.source) rows.push(['Source', alert.source]);
  if (incident) rows.push(['Incident', `#${incident.number} ${incident.title} (${incident.status})${moreAlerts(incident) ? `, ${moreAlerts(incident)}` : ''}`]);
  rows.push(['First seen', alert.createdAt], ['Last seen', alert.lastSeenAt], ['Occurrences', String(alert.occurrences)]);
  return rows;
}

/** The plain-text body: description first, then the facts, labels, links and annotations, and the alert's link. */
export function emailText(ctx: MessageContext): string {
  const { alert } = ctx;
  const { links, notes } = splitAnnotations(alert.annotations);
  const lines = [`[${alert.severity.toUpperCase()}] ${alert.title}`, ''];
  if (ctx.acknowledgeUrl) lines.push(`Acknowledge: ${ctx.acknowledgeUrl}`);
  if (ctx.resolveUrl) lines.push(`Resolve: ${ctx.resolveUrl}`);
  if (ctx.acknowledgeUrl || ctx.resolveUrl) lines.push('');
  lines.push(alert.description?.trim() ? alert.description : '(no description)', '');
  for (const [k, v] of facts(ctx)) lines.push(`${k}: ${v}`);
  const section = (title: string, entries: Array<[string, string]>, sep: string) => {
    if (entries.length === 0) return;
    lines.push('', `${title}:`, ...entries.map(([k, v]) => `  ${k}${sep}${v}`));
  };
  section('Labels', sorted(alert.labels), '=');
  section('Links', links, ': ');
  section('Annotations', notes, ': ');
  lines.push('', `View the alert: ${ctx.alertUrl}`, '', `Sent by AlertFlow (${ctx.workflow ? `workflow ${ctx.workflow.name ?? ctx.workflow.id}` : 'escalation'}).`);
  return `${lines.join('\n')}\n`;
}

/** The HTML body: the same content, every value escaped; only http(s) URLs become links. */
export function emailHtml(ctx: MessageContext): string {
  const { alert } = ctx;
  const e = escapeHtml;
  const { links, notes } = splitAnnotations(alert.annotations);
  const a = (href: string, text: string) => `<a href="${e(href)}">${e(text)}</a>`;
  const table = (rows: string[]) => `<table cellpadding="4" cellspacing="0" border="0">${rows.join('')}</table>`;
  const row = (k: string, v: string) => `<tr><th align="left" valign="top">${e(k)}</th><td>${v}</td></tr>`;
  const parts = [
    `<h2>[${e(alert.severity.toUpperCase())}] ${e(alert.title)}</h2>`,
    ...(ctx.acknowledgeUrl || ctx.resolveUrl
      ? [`<p>${[ctx.acknowledgeUrl && a(ctx.acknowledgeUrl, 'Acknowledge'), ctx.resolveUrl && a(ctx.resolveUrl, 'Resolve')].filter(Boolean).join(' · ')}</p>`]
      : []),
    alert.description?.trim() ? `<p style="white-space:pre-wrap">${e(alert.description)}</p>` : '<p><em>(no description)</em></p>',
    table(facts(ctx).map(([k, v]) => row(k, e(v)))),
  ];
  const labels = sorted(alert.labels);
  if (labels.length) parts.push('<h3>Labels</h3>', table(labels.map(([k, v]) => row(k, e(v)))));
  if (links.length) parts.push('<h3>Links</h3>', `<ul>${links.map(([k, v]) => `<li>${a(v, k)}</li>`).join('')}</ul>`);
  if (notes.length) parts.push('<h3>Annotations</h3>', table(notes.map(([k, v]) => row(k, e(v)))));
  parts.push(`<p>${a(ctx.alertUrl, 'View the alert in AlertFlow')}</p>`);
  return `<!doctype html><html><body>${parts.join('\n')}</body></html>\n`;
}

/** A URL for the delivery log: credentials (if any) never shown. */
export function displayUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.username === '' && u.password === '') return raw;
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return raw;
  }
}

/** A log line about a failure: one line, at most 500 characters. */
export const errorLine = (s: string): string => oneLine(s, 500);

/** The email's Message-ID: the notification id at the host of BASE_URL, the same on every attempt. */
export function messageId(notificationId: string, baseUrl: string): string {
  let host = 'alertflow.localhost';
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '') || host;
  } catch {
    // BASE_URL is validated at start; keep the fallback.
  }
  return `<${notificationId.replace(/[^A-Za-z0-9._-]/g, '')}@${host}>`;
}

/** A delivery log entry as the API shows it. */
export function toNotification(r: NotificationRow, answers: readonly AnswerRow[] = []): Notification {
  return {
    id: r.id,
    alertId: r.alert_id,
    incidentId: r.incident_id,
    workflowId: r.workflow_id,
    actionIndex: r.action_index === null ? null : Number(r.action_index),
    source: r.source as Notification['source'],
    step: r.step === null ? null : Number(r.step),
    recipientId: r.recipient_id,
    channel: r.channel as Notification['channel'],
    target: r.target,
    status: r.status as Notification['status'],
    attempts: r.attempts,
    lastError: r.last_error,
    responseStatus: r.response_status,
    providerStatus: r.provider_status,
    answers: answers.map((a) => ({
      action: a.action as NotificationAnswer['action'], outcome: a.outcome as NotificationAnswer['outcome'], via: a.via, userId: a.user_id, at: iso(a.created_at),
    })),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    sentAt: isoOrNull(r.sent_at),
  };
}


/** A test page: clearly marked, asking for no answer. */
export const testNotice = (name: string, at: number) => ({
  event: 'channel.test',
  subject: `[TEST] AlertFlow test page for ${name}`,
  text: `This is a test page from AlertFlow, sent at ${iso(at)} because someone pressed "Send a test". Nothing is wrong; nothing needs an answer.`,
});
