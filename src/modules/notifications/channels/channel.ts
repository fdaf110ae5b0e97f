import { Type, type TObject, type TProperties, type TString } from 'typebox';
import type { Mailer } from '../../../infra/mailer.ts';
import { checkOutboundUrl, guardedPost, OutboundRefusedError, type AllowList } from '../../../infra/outbound.ts';
import { errorSummary } from '../../../lib/logger.ts';
import type { Alert } from '../../alerts/alerts-schemas.ts';
import type { Config } from '../../../config.ts';
import type { Incident } from '../../incidents/incidents-schemas.ts';
import { httpOutcome, moreAlerts, type Outcome } from '../notifications-fns.ts';
import type { InboundHook } from './inbound.ts';

/**
 * The contract of a notification channel. A channel is one file in this folder and one line in registry.ts,
 * and declares everything the rest of AlertFlow needs to know about it: the shape of its target (which
 * fields are secrets, which are URLs), its name, where it may be used (a member's contact method, an
 * escalation step, a workflow action), how a message reads in it, how it is sent and which failures are
 * retried. Contacts, escalation policies, workflows, the channel catalogue the dashboard builds its forms
 * from, and the OpenAPI document all derive from these declarations; none of them names a channel.
 */

/** What a secret reads as in every response; sent back unchanged, it keeps the stored secret. */
export const MASKED_SECRET = '********';

/** Where a channel may be used: a member's contact method, a channel target of an escalation step, a workflow's `notify` action. */
export const CHANNEL_USES = ['contact', 'escalation', 'workflow'] as const;
export type ChannelUse = (typeof CHANNEL_USES)[number];

/** A page: an alert (and its incident) as they are at send time, and where to act on them. */
export interface PageMessage {
  kind?: 'page';
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
  /** A workflow email action's own subject (placeholders rendered); absent: `[SEVERITY] title`. */
  subject?: string;
  /** For a channel with reply codes: what a reply quotes to answer this page (absent when it cannot be answered). */
  replyCode?: string;
}

/** A notice about no alert: a schedule's handoff, a test page. */
export interface NoticeMessage {
  kind: 'notice';
  /** `schedule.handoff`, `channel.test`. */
  event: string;
  /** One line. */
  subject: string;
  text: string;
  deliveryId: string;
  sentAt: number;
}

export type Message = PageMessage | NoticeMessage;
export const isNotice = (m: Message): m is NoticeMessage => m.kind === 'notice';

export interface ChannelDeps {
  mailer: Mailer | null;
  smtpFrom: string;
  baseUrl: string;
  userAgent: string;
  outboundAllow: AllowList;
  webhookTimeoutMs: number;
  smtpTimeoutMs: number;
  /** The providers the operator configured (config.ts). */
  providers: Config['providers'];
}

export interface SendResult {
  outcome: Outcome;
  error: string | null;
  responseStatus: number | null;
  /** The provider's id of what was sent (a message SID, a chat message), kept to match its callbacks and answers. */
  ref?: string;
}

/** A failure no retry can mend (bad target, refused URL, no mailer): recorded `failed` at once. */
export class PermanentFailure extends Error {}

/** A channel's target as stored and sent: text fields by name (the channel's schema says which). */
export type ChannelTarget = Record<string, string>;

/** The organization a message is sent for, and its own set-up of the channel (null when the channel has none, or it is not set up). */
export interface OrgSetup {
  orgId: string;
  settings: ChannelTarget | null;
}

/** A channel an organization sets up itself (its Slack app, its Telegram bot). */
export interface ChannelSettings {
  /** The settings' fields (made with the field helpers: the bot token is a secret). */
  schema: TObject;
  /** How to set it up, in one paragraph. */
  about: string;
  /**
   * Checked with the provider when saved (the token works; the webhook is set): what it learned to keep with
   * the settings (the bot's name), or why not, in words.
   */
  check?(deps: ChannelDeps, setup: { orgId: string; settings: ChannelTarget }): Promise<{ ok: true; learned?: ChannelTarget } | { ok: false; problem: string }>;
  /** The URLs of ours to give the provider (an interactivity URL), by name. */
  urls?(deps: ChannelDeps, orgId: string): Record<string, string>;
}

export interface Channel<T extends ChannelTarget = ChannelTarget> {
  /** Its name in the catalogue and the forms: "Slack (incoming webhook)". */
  label: string;
  /** One sentence on what it does, for the forms and the OpenAPI document. */
  about: string;
  uses: readonly ChannelUse[];
  /** The target's schema (`additionalProperties: false`), its fields made with `textField`, `urlField` and `secretField`. */
  target: TObject;
  /** The target as the delivery log shows it: no secret (a chat webhook URL is one). */
  describe(target: T): string;
  /** A contact method's label when its owner gives none: what it reaches, without secrets. */
  name(target: T): string;
  /** The host a circuit breaker is kept for, for HTTP channels. */
  host(target: T): string | null;
  /** The message as sent, pure (what the unit tests check against each service's limits). */
  render(message: Message, target: T): unknown;
  send(deps: ChannelDeps, message: Message, target: T, org: OrgSetup): Promise<SendResult>;
  /**
   * Shows a sent page as its incident is now (acknowledged, resolved: its buttons gone), where the provider
   * lets a sent message change (`ref` is what `send` returned).
   */
  refresh?(deps: ChannelDeps, message: Message, ref: string, org: OrgSetup): Promise<SendResult>;
  /** Set up by each organization (an app, a bot): it sends only once set up. */
  settings?: ChannelSettings;
  /** The longest one attempt may take (default: the webhook timeout); an attempt silent for longer is presumed dead and retried. */
  attemptMs?(deps: ChannelDeps): number;
  /** Null when the channel can send; else why not, in words (e.g. its provider is not configured). */
  unavailable?(deps: ChannelDeps): string | null;
  /**
   * A member links their own account of it (a Telegram chat) by sending a one-time code to it, rather than
   * typing a target: the channel's inbound hook makes the contact method (InboundContext.link).
   */
  linking?: { instructions(code: string, settings: ChannelTarget | null): string };
  /**
   * At most one send per `everyMs` per `key` (e.g. Twilio's one message a second per sending number): a send
   * waits for its slot, queued, never dropped.
   */
  pace?(target: T, deps: ChannelDeps): { key: string; everyMs: number } | null;
  /** A target pages only after its owner confirmed a code sent through the channel (a phone number): `code`. */
  verification?: 'code';
  /**
   * Its pages carry a short reply code, unique per `address` (the number paged) while it lives: a reply from
   * that address quoting it answers the page.
   */
  replyCodes?: { address(target: T): string };
  /** How a person answers through it: the requests its provider sends, under `/api/inbound/channels/<type>/<hook>`. */
  inbound?: Readonly<Record<string, InboundHook>>;
}

// ---- Target fields ----------------------------------------------------------------------------------

/** What a target field is, beyond its JSON Schema: how forms show it and what is checked and masked. */
export interface FieldFlags {
  /** Never shown: responses carry MASKED_SECRET, and MASKED_SECRET sent back keeps the stored value. */
  secret?: boolean;
  /** An http(s) URL: checked by the outbound address policy when saved and when sent. */
  url?: boolean;
  /** The shortest secret accepted (the schema admits the shorter mask). */
  secretMin?: number;
}
const FLAGS = 'x-alertflow';

type FieldOptions = { label: string; description: string; maxLength?: number; pattern?: string; format?: string; minLength?: number };

function field(o: FieldOptions, flags: FieldFlags): TString {
  return Type.String({
    title: o.label,
    description: o.description,
    minLength: o.minLength ?? 1,
    maxLength: o.maxLength ?? 2048,
    ...(o.pattern !== undefined && { pattern: o.pattern }),
    ...(o.format !== undefined && { format: o.format }),
    ...(Object.keys(flags).length > 0 && { [FLAGS]: flags }),
  });
}

/** Plain text (an address, a topic, a channel id). */
export const textField = (o: FieldOptions): TString => field(o, {});
/** An http or https URL, checked by the outbound address policy when saved and when sent. */
export const urlField = (o: FieldOptions): TString => field({ maxLength: 2048, ...o, description: `${o.description} http or https, without credentials; a private or loopback address is refused unless the operator allows it (OUTBOUND_ALLOW).` }, { url: true });
/** A secret: never shown (responses carry the mask), kept when the mask is sent back, removed when left out. */
export const secretField = (o: FieldOptions & { secretMin?: number }): TString =>
  field({ maxLength: 256, ...o, description: `${o.description} Never returned: responses show \`${MASKED_SECRET}\`; sending \`${MASKED_SECRET}\` back keeps the stored one, leaving it out removes it.` },
    { secret: true, ...(o.secretMin !== undefined && { secretMin: o.secretMin }) });

/** A target schema: its fields (made with the helpers above, `Type.Optional` for optional ones) and nothing else. */
export const targetSchema = <P extends TProperties>(fields: P): TObject<P> => Type.Object(fields, { additionalProperties: false });

export const flagsOf = (schema: unknown): FieldFlags => ((schema as Record<string, unknown>)[FLAGS] as FieldFlags | undefined) ?? {};

// ---- Shared by the channels ---------------------------------------------------------------------------

/** Text bounded to `max` UTF-16 units, an ellipsis marking the cut, which never splits a surrogate pair. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = Math.max(0, max - 1);
  if (end > 0 && /[\uD800-\uDBFF]/.test(s[end - 1] as string)) end--;
  return `${s.slice(0, end)}…`;
}

/**
 * A message within a size limit: built with a text budget and a number of fields, both halved (the text
 * dropped below 100 characters) until `fits` holds or nothing is left to drop. Escaped text can take several
 * bytes per character, so a message is measured, not estimated.
 */
export function shrinkToFit<T>(build: (textMax: number, fields: number) => T, fits: (message: T) => boolean, start: { text: number; fields: number }): T {
  let { text, fields } = start;
  for (;;) {
    const message = build(text, fields);
    if (fits(message) || (text === 0 && fields === 0)) return message;
    text = text >= 200 ? Math.floor(text / 2) : 0;
    fields = Math.floor(fields / 2);
  }
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

export interface MessageParts {
  title: string;
  severity: string;
  status: string;
  description: string;
  labels: Array<[string, string]>;
  links: Array<[string, string]>;
}

/**
 * The parts every chat channel shows, in order: labels sorted, annotations that are http(s) URLs as links.
 * A notice reads as an `info` message with its text as the description.
 */
export function pageParts(message: Message): MessageParts {
  if (isNotice(message)) return { title: message.subject, severity: 'info', status: 'notice', description: message.text, labels: [], links: [] };
  const { alert, incident } = message;
  const links: Array<[string, string]> = [];
  if (incident) links.push([`Incident #${incident.number}`, `${message.alertUrl.replace(/\/alerts\/[^/]*$/, '')}/incidents/${encodeURIComponent(incident.id)}`]);
  links.push(['Alert', message.alertUrl]);
  for (const [k, v] of sortedEntries(alert.annotations)) if (isLink(v)) links.push([k, v]);
  return {
    title: incident ? `#${incident.number} ${alert.title}${moreAlerts(incident) ? ` (${moreAlerts(incident)})` : ''}` : alert.title,
    severity: alert.severity,
    status: alert.status,
    description: alert.description?.trim() ?? '',
    labels: sortedEntries(alert.labels),
    links,
  };
}

/** The acknowledge / resolve / open links a page offers as buttons (a notice offers none). */
export function pageActions(message: Message): Array<{ label: 'Acknowledge' | 'Resolve' | 'Open'; url: string }> {
  if (isNotice(message)) return [];
  return [
    ...(message.acknowledgeUrl ? [{ label: 'Acknowledge' as const, url: message.acknowledgeUrl }] : []),
    ...(message.resolveUrl ? [{ label: 'Resolve' as const, url: message.resolveUrl }] : []),
    { label: 'Open', url: message.alertUrl },
  ];
}
