import type { ChannelDeps, ChannelTarget } from './channel.ts';

/**
 * The inbound half of a channel: how a person answers a page through it (an SMS reply, a key pressed on a
 * call, a button in a chat) and how its provider reports what became of a message. A channel declares its
 * hooks; the notifications module mounts them under `/api/inbound/channels/<type>/<hook>` and hands each a
 * context with the few things an answer needs, so no channel touches the database or another module.
 */

export interface InboundRequest {
  /** The URL as the provider called it: BASE_URL, path and query (what Twilio signs). */
  url: string;
  query: Readonly<Record<string, string>>;
  /** Header names lower-cased. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The body as received (what Slack signs). */
  rawBody: string;
  /** Its form fields in order, when form-encoded (empty otherwise). */
  form: ReadonlyArray<readonly [string, string]>;
  /** Its JSON, when JSON (undefined otherwise). */
  json: unknown;
  /** The organization the path names, for a hook per organization (`/api/inbound/channels/<type>/<orgId>/<hook>`). */
  orgId: string | null;
}

export interface InboundReply {
  status: number;
  type: 'xml' | 'json' | 'text';
  body: string;
}

/** A sent page, as an answer finds it. */
export interface PageRef {
  id: string;
  orgId: string;
  incidentId: string | null;
  /** The member it went to (null for a page to a shared channel). */
  recipientId: string | null;
  channel: string;
  /** As its channel describes it (the number paged, the chat). */
  target: string;
  status: string;
  providerRef: string | null;
  createdAt: number;
}

export type AnswerAction = 'acknowledge' | 'resolve';

export interface IncidentSummary {
  number: number;
  title: string;
  status: string;
}

/**
 * What an answer came to: `done` (the incident moved), `already` (it was acknowledged or resolved already:
 * nothing changed), `duplicate` (this very request was handled before: a replay, nothing changed), `gone` (the
 * incident no longer exists).
 */
export type AnswerOutcome =
  | { state: 'done'; incident: IncidentSummary }
  | { state: 'already'; incident: IncidentSummary }
  | { state: 'duplicate' }
  | { state: 'gone' };

export interface InboundContext {
  deps: ChannelDeps;
  now(): number;
  /** A page of this channel by its notification id; null when there is none. */
  page(id: string): Promise<PageRef | null>;
  /** The live page an address (the number that replied) was sent with this reply code; null when none (or it expired). */
  pageByReplyCode(address: string, code: string): Promise<PageRef | null>;
  /**
   * Acts on a page's incident through the incidents service (its acknowledge/resolve rule), as `userId`, at
   * most once per `eventKey` (the provider's id of the request), and logs the answer with the page.
   */
  answer(a: { page: PageRef; action: AnswerAction; userId: string | null; eventKey: string; via: string }): Promise<AnswerOutcome>;
  /** Records what the provider says became of a sent page; a `failure` (undelivered, not answered) marks it failed, in words. */
  providerStatus(page: PageRef, status: string, failure: string | null): Promise<void>;
  /** The organization's set-up of this channel (its app's secrets); null when it has none. */
  settings(orgId: string): Promise<ChannelTarget | null>;
  /** The member of the organization with this email address (case-insensitive); null when none. */
  memberByEmail(orgId: string, email: string): Promise<string | null>;
  /** The member a linked chat account is (`link` made it); null when none. */
  member(orgId: string, externalId: string): Promise<string | null>;
  /**
   * Links a chat account with a one-time code a member asked for: makes their contact method (`target`) and
   * remembers who `externalId` is. The member's account address, or null when the code is unknown, used or expired.
   */
  link(orgId: string, code: string, target: ChannelTarget, externalId: string): Promise<{ email: string } | null>;
}

export interface InboundHook {
  /** How the provider sends its requests: `form` (application/x-www-form-urlencoded) or `json`. */
  body: 'form' | 'json';
  /** The path names an organization (its own app or bot, verified with its own secret). */
  perOrg?: boolean;
  handle(ctx: InboundContext, req: InboundRequest): Promise<InboundReply>;
}

/** Refused: the request is not the provider's (bad or missing signature), or names nothing of ours. Nothing changed. */
export const refused = (status: 401 | 403 | 404, why: string): InboundReply => ({ status, type: 'text', body: why });

/**
 * Whether a request's provider id (a CallSid, a MessageSid) is this page's. The signed URL already names the
 * page; the id is checked as well once it is recorded. A callback can come in before the send's answer is
 * recorded (a provider reports quickly), so a page with no id yet takes the one given.
 */
export const sameSend = (page: PageRef, providerId: string): boolean => providerId !== '' && (page.providerRef === null || page.providerRef === providerId);

/** A form field's value (the first, if repeated), or ''. */
export const formField = (req: Pick<InboundRequest, 'form'>, name: string): string => req.form.find(([k]) => k === name)?.[1] ?? '';
