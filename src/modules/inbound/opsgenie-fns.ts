import type { ErrorDetail } from '../../lib/errors.ts';
import { ALERT_LIMITS } from '../ingest/normalize-fns.ts';
import { BoundedMap, isObject, labelValue } from './inbound-fns.ts';

/**
 * Opsgenie's Alert API, as opsgenie/opsgenie-oas defines it (`paths/alert.yaml`, `definitions/alert.yaml`,
 * `definitions/common.yaml`, `parameters/alert.yaml`), with the field limits of Opsgenie's Alert API
 * documentation (docs.opsgenie.com/docs/alert-api): message 130 characters, alias 512, description 15,000.
 */
export const OG_LIMITS = Object.freeze({ message: 130, alias: 512, description: 15_000, entity: 512 });
const PRIORITY = { P1: 'critical', P2: 'high', P3: 'medium', P4: 'low', P5: 'info' } as const;
const PRIORITIES = Object.keys(PRIORITY);
/** Opsgenie's default priority. */
const DEFAULT_PRIORITY = 'P3';
const RECIPIENT_TYPES = ['all', 'none', 'user', 'escalation', 'schedule', 'team', 'group'];
/** A tag `key:value` also sets label `key`, when `key` reads as a label name (and the tag is no URL). */
const KEY_VALUE_TAG = /^([A-Za-z_][A-Za-z0-9_.-]*):(?!\/\/)(.+)$/;

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: ErrorDetail[] };

/** Opsgenie counts characters as code points (a 130-character message may hold 130 emoji), as Alertmanager truncates. */
const length = (s: string): number => [...s].length;

function checker(body: Record<string, unknown>) {
  const errors: ErrorDetail[] = [];
  const fail = (path: string, message: string) => errors.push({ path: `/${path}`, message });
  const text = (field: string, max: number, required = false): string | null => {
    const v = body[field];
    if (v === undefined || v === null) {
      if (required) fail(field, 'is required');
      return null;
    }
    if (typeof v !== 'string') fail(field, 'must be a string');
    else if (required && v.trim() === '') fail(field, 'must not be blank');
    else if (length(v) > max) fail(field, `must be at most ${max} characters`);
    else return v;
    return null;
  };
  const strings = (field: string): string[] => {
    const v = body[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      fail(field, 'must be an array of strings');
      return [];
    }
    return v as string[];
  };
  const recipients = (field: string): string[] => {
    const v = body[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      fail(field, 'must be an array');
      return [];
    }
    return v.flatMap((r, i) => {
      if (!isObject(r) || typeof r.type !== 'string' || !RECIPIENT_TYPES.includes(r.type)) {
        fail(`${field}/${i}/type`, `must be one of ${RECIPIENT_TYPES.join(', ')}`);
        return [];
      }
      const who = [r.name, r.username, r.id].find((x) => typeof x === 'string' && x !== '');
      return [who === undefined ? r.type : `${r.type}:${who as string}`];
    });
  };
  return { errors, fail, text, strings, recipients };
}

/** An action's optional body (`AlertActionPayload`: `user`, `note`, `source`): only its form is checked. */
export function checkActionBody(body: unknown): ErrorDetail[] {
  if (body === undefined || body === null) return [];
  if (!isObject(body)) return [{ path: '', message: 'must be a JSON object' }];
  const c = checker(body);
  c.text('user', ALERT_LIMITS.text);
  c.text('note', ALERT_LIMITS.entryValue);
  c.text('source', ALERT_LIMITS.text);
  return c.errors;
}

/**
 * A create request (`CreateAlertPayload`) as the standard payload. `alias` is the fingerprint (one open
 * alert per alias); without one, `newAlias` makes it, so that each such create is an alert of its own, as in
 * Opsgenie. `sourceIp` is the source when none is given (the OAS: "Default value is IP address of the
 * incoming request"). Labels and annotations: docs/senders.md, "Opsgenie Alert API".
 */
export function readCreate(body: unknown, newAlias: () => string, sourceIp: string): Checked<{ alias: string; alert: Record<string, unknown> }> {
  if (!isObject(body)) return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  const c = checker(body);
  const message = c.text('message', OG_LIMITS.message, true);
  const alias = c.text('alias', OG_LIMITS.alias);
  const description = c.text('description', OG_LIMITS.description);
  const entity = c.text('entity', OG_LIMITS.entity);
  const source = c.text('source', ALERT_LIMITS.text);
  const user = c.text('user', ALERT_LIMITS.text);
  const note = c.text('note', ALERT_LIMITS.entryValue);
  const tags = c.strings('tags');
  const actions = c.strings('actions');
  const responders = c.recipients('responders');
  const visibleTo = c.recipients('visibleTo');
  const priority = body.priority ?? DEFAULT_PRIORITY;
  if (typeof priority !== 'string' || !PRIORITIES.includes(priority)) c.fail('priority', `must be one of ${PRIORITIES.join(', ')}`);
  const details = body.details;
  if (details !== undefined && details !== null && !isObject(details)) c.fail('details', 'must be an object');
  if (c.errors.length > 0) return { ok: false, errors: c.errors };

  const labels = new BoundedMap();
  for (const [k, v] of Object.entries(isObject(details) ? details : {})) {
    const value = labelValue(v);
    if (value !== null) labels.add(k, value);
  }
  if (entity !== null) labels.add('entity', entity);
  for (const tag of tags) {
    const kv = KEY_VALUE_TAG.exec(tag);
    if (kv) labels.add(kv[1] as string, kv[2] as string);
  }
  if (tags.length > 0) labels.add('tags', tags.join(','));
  const annotations = new BoundedMap();
  const joined = (key: string, list: string[]) => list.length > 0 && annotations.add(key, list.join(', '));
  joined('responders', responders);
  joined('visibleTo', visibleTo);
  joined('actions', actions);
  if (note !== null) annotations.add('note', note);
  if (user !== null) annotations.add('user', user);

  const key = alias !== null && alias !== '' ? alias : newAlias();
  return {
    ok: true,
    value: {
      alias: key,
      alert: {
        title: message,
        severity: PRIORITY[priority as keyof typeof PRIORITY],
        status: 'firing',
        source: source ?? sourceIp,
        description,
        fingerprint: key,
        labels: labels.entries,
        annotations: annotations.entries,
      },
    },
  };
}

/**
 * An update of the message (`UpdateAlertMessagePayload`) or description (`UpdateAlertDescriptionPayload`). An
 * absent or empty description clears it: Alertmanager's `update_alerts` sends `{}` when its description is empty.
 */
export function readUpdate(body: unknown, field: 'message' | 'description'): Checked<string | null> {
  if (!isObject(body)) return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  const c = checker(body);
  const value = c.text(field, field === 'message' ? OG_LIMITS.message : OG_LIMITS.description, field === 'message');
  return c.errors.length > 0 ? { ok: false, errors: c.errors } : { ok: true, value: value === '' ? null : value };
}
