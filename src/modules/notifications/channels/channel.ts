import type { TSchema } from 'typebox';
import type { Mailer } from '../../../infra/mailer.ts';
import { checkOutboundUrl, guardedPost, OutboundRefusedError, type AllowList } from '../../../infra/outbound.ts';
import { errorSummary } from '../../../lib/logger.ts';
import type { Alert } from '../../alerts/alerts-schemas.ts';
import type { Incident } from '../../incidents/incidents-schemas.ts';
import { httpOutcome, type Outcome } from '../notifications-fns.ts';

/**
 * The contract of a notification channel (email, webhook, Slack, Teams, ntfy). A channel declares the
 * shape of its target (validated wherever a target is written, and shown in the OpenAPI document), how a
 * page reads in it, how it is sent, and which failures are retried. The registry (registry.ts) names them;
 * code that pages someone never names a channel.
 */
export const CHANNEL_TYPES = ['email', 'webhook', 'slack', 'teams', 'ntfy'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** What a page is about: the alert and its incident as they are at send time, and where to act on them. */
export interface PageMessage {
  alert: Alert;
  incident: Incident | null;
  /** `${BASE_URL}/alerts/<id>`. */
  alertUrl: string;
  /** The signed acknowledge / resolve links of an escalation page (absent on other notifications). */
  acknowledgeUrl?: string | null;
  resolveUrl?: string | null;
  /** The notification id, the same on every attempt. */
  deliveryId: string;
  /** The workflow whose action sent it, if one did. */
  workflow?: { id: string; name: string | null } | null;
  /** What the page is for: `escalation.step`, or a workflow's trigger. */
  event: string;
  sentAt: number;
}

export interface ChannelDeps {
  mailer: Mailer | null;
  smtpFrom: string;
  baseUrl: string;
  userAgent: string;
  outboundAllow: AllowList;
  webhookTimeoutMs: number;
  smtpTimeoutMs: number;
}

export interface SendResult {
  outcome: Outcome;
  error: string | null;
  responseStatus: number | null;
}

/** A failure no retry can mend (bad target, refused URL, no mailer): recorded `failed` at once. */
export class PermanentFailure extends Error {}

export interface Channel<T = unknown> {
  type: ChannelType;
  /** The target's TypeBox schema (`additionalProperties: false`). */
  target: TSchema;
  /** The target as the delivery log shows it: no secret (a chat webhook URL is one). */
  describe(target: T): string;
  /** The host a circuit breaker is kept for, for HTTP channels. */
  host(target: T): string | null;
  /** The request body, pure (what the unit tests check against each service's limits). */
  render(page: PageMessage, target: T): unknown;
  send(deps: ChannelDeps, page: PageMessage, target: T): Promise<SendResult>;
}

/** How a member is paged: the contacts module's personal rules ("ntfy now, email after 3 minutes"). */
export interface ContactStep {
  afterMinutes: number;
  channel: ChannelType;
  /** That channel's target. */
  target: unknown;
}
export interface MemberContacts {
  planFor(orgId: string, userId: string): Promise<ContactStep[]>;
}

/** Text bounded to `max` UTF-16 units, an ellipsis marking the cut, which never splits a surrogate pair. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = Math.max(0, max - 1);
  if (end > 0 && /[\uD800-\uDBFF]/.test(s[end - 1] as string)) end--;
  return `${s.slice(0, end)}…`;
}

/** The host of a URL (as its breaker is keyed), or null. */
export function hostOf(raw: string): string | null {
  try {
    return new URL(raw).host.toLowerCase();
  } catch {
    return null;
  }
}

/** `https://host/…`: where a secret-bearing URL points, without the secret part. */
export function hostOnly(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * POSTs JSON through the outbound guard: 2xx sent, 5xx and network errors retried, other answers final;
 * a refused URL is a PermanentFailure.
 */
export async function postJson(deps: ChannelDeps, url: string, body: unknown, headers: Record<string, string> = {}): Promise<SendResult> {
  const checked = checkOutboundUrl(url, deps.outboundAllow);
  if (!checked.ok) throw new PermanentFailure(`The URL ${checked.reason}`);
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  try {
    const res = await guardedPost(checked.url, bytes, { 'Content-Type': 'application/json', 'User-Agent': deps.userAgent, ...headers }, { allow: deps.outboundAllow, timeoutMs: deps.webhookTimeoutMs });
    const outcome = httpOutcome(res.status);
    return { outcome, error: outcome === 'sent' ? null : `HTTP ${res.status}${res.excerpt.trim() ? `: ${res.excerpt}` : ''}`, responseStatus: res.status };
  } catch (err) {
    if (err instanceof OutboundRefusedError) throw new PermanentFailure(`The URL is refused: ${err.message}`);
    const e = errorSummary(err);
    return { outcome: 'retry', error: `${e.code ? `${String(e.code)}: ` : ''}${e.message ?? 'request failed'}`, responseStatus: null };
  }
}

const sortedEntries = (map: Record<string, string>): Array<[string, string]> =>
  Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const isLink = (v: string): boolean => /^https?:\/\/[^\s]+$/i.test(v);

/** The parts every chat channel shows, in order: labels sorted, annotations that are http(s) URLs as links. */
export function pageParts(page: PageMessage): { title: string; severity: string; status: string; description: string; labels: Array<[string, string]>; links: Array<[string, string]> } {
  const { alert, incident } = page;
  const links: Array<[string, string]> = [];
  if (incident) links.push([`Incident #${incident.number}`, `${page.alertUrl.replace(/\/alerts\/[^/]*$/, '')}/incidents/${encodeURIComponent(incident.id)}`]);
  links.push(['Alert', page.alertUrl]);
  for (const [k, v] of sortedEntries(alert.annotations)) if (isLink(v)) links.push([k, v]);
  return {
    title: incident ? `#${incident.number} ${alert.title}` : alert.title,
    severity: alert.severity,
    status: alert.status,
    description: alert.description?.trim() ?? '',
    labels: sortedEntries(alert.labels),
    links,
  };
}
