import type { ErrorDetail } from '../../lib/errors.ts';
import { ALERT_LIMITS } from '../ingest/normalize-fns.ts';
import { BoundedMap, clip, isObject, labelValue, webUrl } from './inbound-fns.ts';

/**
 * PagerDuty's Events API v2, as its published documents define it: the event schema and examples of
 * PagerDuty/api-schema `reference/events-v2/openapiv3.json`, the field limits and de-duplication rules of
 * PagerDuty/developer-docs `docs/events-API-v2/02-Trigger-Events.md`, the size limit of its `01-Overview.md`.
 */
export const PD_ACTIONS = ['trigger', 'acknowledge', 'resolve'] as const;
export type PagerDutyAction = (typeof PD_ACTIONS)[number];
const SEVERITY = { critical: 'critical', error: 'high', warning: 'medium', info: 'info' } as const;
const PD_SEVERITIES = Object.keys(SEVERITY) as Array<keyof typeof SEVERITY>;
export const PD_LIMITS = Object.freeze({ dedupKey: 255, summary: 1024, bodyBytes: 512 * 1024 });

/** A valid event: what it asks, for which key, and for a trigger the alert in the standard payload. */
export type PagerDutyEvent =
  | { action: 'trigger'; dedupKey: string; alert: Record<string, unknown> }
  | { action: 'acknowledge' | 'resolve'; dedupKey: string };

export type ReadResult = { ok: true; event: PagerDutyEvent } | { ok: false; errors: ErrorDetail[] };

/** The event's routing key, if it has one of the right type (whether it names an integration is another matter). */
export const routingKeyOf = (body: unknown): string | null =>
  isObject(body) && typeof body.routing_key === 'string' && body.routing_key !== '' ? body.routing_key : null;

/**
 * Checks an event and translates it. `newKey` makes the `dedup_key` of a trigger sent without one (PagerDuty
 * generates one and returns it). Errors name the field, as PagerDuty's `errors` do. Pure but for `newKey`.
 */
export function readEvent(body: unknown, newKey: () => string): ReadResult {
  if (!isObject(body)) return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  const errors: ErrorDetail[] = [];
  const action = body.event_action;
  if (!(PD_ACTIONS as readonly unknown[]).includes(action)) {
    errors.push({ path: '/event_action', message: `must be one of ${PD_ACTIONS.join(', ')}` });
    return { ok: false, errors };
  }
  const sent = body.dedup_key;
  if (sent !== undefined && sent !== null && typeof sent !== 'string') errors.push({ path: '/dedup_key', message: 'must be a string' });
  else if (typeof sent === 'string' && sent.length > PD_LIMITS.dedupKey) errors.push({ path: '/dedup_key', message: `must be at most ${PD_LIMITS.dedupKey} characters` });
  const given = typeof sent === 'string' && sent !== '' ? sent : null;
  if (action !== 'trigger') {
    if (given === null && errors.length === 0) errors.push({ path: '/dedup_key', message: `is required to ${action as string}` });
    return errors.length > 0 ? { ok: false, errors } : { ok: true, event: { action: action as 'acknowledge' | 'resolve', dedupKey: given as string } };
  }
  const alert = triggerAlert(body, errors);
  if (errors.length > 0 || alert === null) return { ok: false, errors };
  const dedupKey = given ?? newKey();
  return { ok: true, event: { action: 'trigger', dedupKey, alert: { ...alert, fingerprint: dedupKey } } };
}

/** A trigger's `payload` and context as the standard payload (docs/senders.md, "PagerDuty Events API v2"). */
function triggerAlert(body: Record<string, unknown>, errors: ErrorDetail[]): Record<string, unknown> | null {
  const payload = body.payload;
  if (!isObject(payload)) {
    errors.push({ path: '/payload', message: 'is required for a trigger and must be an object' });
    return null;
  }
  const fail = (field: string, message: string) => errors.push({ path: `/payload/${field}`, message });
  const text = (field: string, opts: { required?: boolean; max?: number } = {}): string | null => {
    const v = payload[field];
    if (v === undefined || v === null) {
      if (opts.required) fail(field, 'is required');
      return null;
    }
    if (typeof v !== 'string') fail(field, 'must be a string');
    else if (opts.required && v.trim() === '') fail(field, 'must not be blank');
    else if (v.length > (opts.max ?? ALERT_LIMITS.entryValue)) fail(field, `must be at most ${opts.max ?? ALERT_LIMITS.entryValue} characters`);
    else return v;
    return null;
  };
  const summary = text('summary', { required: true, max: PD_LIMITS.summary });
  const source = text('source', { required: true, max: ALERT_LIMITS.text });
  const severity = payload.severity;
  if (!(PD_SEVERITIES as unknown[]).includes(severity)) fail('severity', `must be one of ${PD_SEVERITIES.join(', ')}`);
  const timestamp = text('timestamp', { max: 64 });
  const context = { component: text('component'), group: text('group'), class: text('class') };
  for (const field of ['images', 'links'] as const) {
    if (body[field] !== undefined && body[field] !== null && !Array.isArray(body[field])) errors.push({ path: `/${field}`, message: 'must be an array' });
  }
  if (errors.length > 0) return null;

  const labels = new BoundedMap();
  for (const [k, v] of Object.entries(context)) if (v !== null) labels.add(k, v);
  const details = payload.custom_details;
  if (isObject(details)) {
    for (const [k, v] of Object.entries(details)) {
      const value = labelValue(v);
      if (value !== null) labels.add(k, value);
    }
  }
  const annotations = new BoundedMap();
  if (typeof body.client === 'string') annotations.add('client', body.client);
  const clientUrl = webUrl(body.client_url);
  if (clientUrl !== null) annotations.add('client_url', clientUrl);
  if (timestamp !== null) annotations.add('timestamp', timestamp);
  // A link is shown under its text, an image under its alt text: the alert page lists annotations as name → link.
  const named = (list: unknown, url: string, name: string, fallback: string) => {
    for (const item of (list ?? []) as unknown[]) {
      if (!isObject(item)) continue;
      const href = webUrl(item[url]);
      const text = item[name];
      if (href !== null) annotations.add(typeof text === 'string' && text.trim() !== '' ? text : fallback, href, { unique: true });
    }
  };
  named(body.links, 'href', 'text', 'link');
  named(body.images, 'src', 'alt', 'image');
  return {
    title: summary,
    severity: SEVERITY[severity as keyof typeof SEVERITY],
    status: 'firing',
    source,
    description: detailsText(details),
    labels: labels.entries,
    annotations: annotations.entries,
  };
}

/** `custom_details` as the alert's description: one `key: value` per line, nested values as JSON. */
function detailsText(details: unknown): string | null {
  if (details === undefined || details === null) return null;
  const line = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  const text = isObject(details)
    ? Object.entries(details).map(([k, v]) => `${k}: ${line(v).includes('\n') ? `\n${line(v)}` : line(v)}`).join('\n')
    : line(details);
  return text.trim() === '' ? null : clip(text, ALERT_LIMITS.description);
}
