import { createHash } from 'node:crypto';
import type { ErrorDetail } from '../../lib/errors.ts';
import { SEVERITIES, STATUSES, type AlertStatus, type Severity } from '../alerts/alerts-fns.ts';
import { applyMapping, explainError, type Mapping } from './mapping-fns.ts';

export interface NormalizedAlert {
  title: string | null;
  severity: Severity | null;
  status: AlertStatus;
  source: string | null;
  description: string | null;
  fingerprint: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  payload: unknown;
}

export type NormalizeResult = { ok: true; alert: NormalizedAlert } | { ok: false; errors: ErrorDetail[] };
export type NormalizeManyResult = { ok: true; alerts: NormalizedAlert[] } | { ok: false; errors: ErrorDetail[] };

/**
 * Bounds of one alert, close to what PagerDuty (summary ≤ 1,024 characters) and Opsgenie (description
 * ≤ 15,000 characters, bounded details) publish, so that one alert stays small in every list and email:
 * a page of 100 alerts is at most a few MB whatever senders put in them.
 */
export const ALERT_LIMITS = Object.freeze({
  /** `title` and `source`. */
  text: 1024,
  description: 15_000,
  /** `fingerprint` and `dedup_key`. */
  key: 512,
  /** Entries of `labels`, and of `annotations`. */
  entries: 64,
  entryKey: 255,
  entryValue: 4096,
  /** `labels`, and `annotations`, each as JSON (UTF-8 bytes). */
  mapBytes: 16 * 1024,
});

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Stable fallback key: the same title and source always deduplicate together. */
export function deriveFingerprint(title: string, source: string | null): string {
  return createHash('sha256').update(`${title}\u0000${source ?? ''}`).digest('hex').slice(0, 40);
}

/** At most this many error details per answer: a 1,000-alert payload with one bad field would list 1,000. */
const MAX_ERRORS = 50;

/**
 * A sender's payload as the alerts to store: through the integration's mapping when it has one, else as a
 * standard payload. All or nothing: one bad item makes the whole payload an error that names the item.
 */
export function normalizePayload(mapping: Mapping | null, body: unknown): NormalizeManyResult {
  if (mapping === null) {
    const r = normalize(body);
    return r.ok ? { ok: true, alerts: [r.alert] } : r;
  }
  const mapped = applyMapping(mapping, body);
  if (!mapped.ok) return mapped;
  const alerts: NormalizedAlert[] = [];
  const errors: ErrorDetail[] = [];
  for (const item of mapped.items) {
    const r = normalize(item.payload, item.raw);
    if (r.ok) alerts.push(r.alert);
    else errors.push(...r.errors.map((e) => explainError(item, e)));
    if (errors.length >= MAX_ERRORS) break;
  }
  return errors.length > 0 ? { ok: false, errors: errors.slice(0, MAX_ERRORS) } : { ok: true, alerts };
}

/**
 * Checks a standard payload (interface §2.1, contract §4) and turns it into the stored form. Unknown
 * top-level fields are ignored; `raw` (the sender's own payload or element) is kept for inspection.
 * Pure: no I/O, no clock.
 */
export function normalize(payload: unknown, raw: unknown = payload): NormalizeResult {
  if (!isPlainObject(payload)) return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  const errors: ErrorDetail[] = [];

  const text = (field: string, max: number): string | null => {
    const v = payload[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') {
      errors.push({ path: `/${field}`, message: 'must be a string' });
      return null;
    }
    if (v.length > max) errors.push({ path: `/${field}`, message: `must be at most ${max} characters` });
    return v;
  };
  // Senders often send numeric ids as keys; accept them as their decimal text.
  const key = (field: string): string | null => {
    const v = payload[field];
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    const s = text(field, ALERT_LIMITS.key);
    return s === '' ? null : s;
  };
  const choice = <T extends string>(field: string, allowed: readonly T[]): T | null => {
    const v = text(field, 64);
    if (v === null) return null;
    const lower = v.toLowerCase() as T;
    if (allowed.includes(lower)) return lower;
    errors.push({ path: `/${field}`, message: `must be one of ${allowed.join(', ')}` });
    return null;
  };
  const map = (field: string): Record<string, string> => {
    const v = payload[field];
    if (v === undefined || v === null) return {};
    if (!isPlainObject(v)) {
      errors.push({ path: `/${field}`, message: 'must be an object' });
      return {};
    }
    const entries = Object.entries(v);
    if (entries.length > ALERT_LIMITS.entries) {
      errors.push({ path: `/${field}`, message: `must have at most ${ALERT_LIMITS.entries} entries` });
      return {};
    }
    // A null-prototype object: keys such as "__proto__" stay plain data.
    const out: Record<string, string> = Object.create(null);
    for (const [k, val] of entries) {
      // The key itself may be huge: the path names its start only.
      if (k.length > ALERT_LIMITS.entryKey) errors.push({ path: `/${field}/${k.slice(0, 32)}…`, message: `keys must be at most ${ALERT_LIMITS.entryKey} characters` });
      else if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') {
        const s = String(val);
        if (s.length > ALERT_LIMITS.entryValue) errors.push({ path: `/${field}/${k}`, message: `must be at most ${ALERT_LIMITS.entryValue} characters` });
        else out[k] = s;
      } else if (val !== null) errors.push({ path: `/${field}/${k}`, message: 'must be a string, number or boolean' });
    }
    if (Buffer.byteLength(JSON.stringify(out)) > ALERT_LIMITS.mapBytes) {
      errors.push({ path: `/${field}`, message: `must be at most ${ALERT_LIMITS.mapBytes / 1024} KiB as JSON` });
    }
    return out;
  };

  const status = choice('status', STATUSES) ?? 'firing';
  const rawTitle = text('title', ALERT_LIMITS.text);
  const title = rawTitle === null || rawTitle.trim() === '' ? null : rawTitle;
  const severity = choice('severity', SEVERITIES);
  const source = text('source', ALERT_LIMITS.text);
  const description = text('description', ALERT_LIMITS.description);
  const fingerprint = key('fingerprint');
  const dedupKey = key('dedup_key');
  const labels = map('labels');
  const annotations = map('annotations');

  if (status === 'resolved') {
    if (fingerprint === null && dedupKey === null && title === null) {
      errors.push({ path: '/fingerprint', message: 'a resolved payload needs fingerprint, dedup_key or title' });
    }
  } else {
    if (title === null && !errors.some((e) => e.path === '/title')) errors.push({ path: '/title', message: 'is required' });
    if (severity === null && !errors.some((e) => e.path === '/severity')) errors.push({ path: '/severity', message: 'is required' });
  }
  if (errors.length > 0) return { ok: false, errors };

  return {
    ok: true,
    alert: {
      title,
      severity,
      status,
      source,
      description,
      fingerprint: fingerprint ?? dedupKey ?? deriveFingerprint(title as string, source),
      labels,
      annotations,
      payload: raw,
    },
  };
}
