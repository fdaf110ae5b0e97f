import type { Alert, CreateSuppressionBody, Matcher, SuppressionWindow } from '../../api/types';
import { plural } from '../../components/format';
import { fromLocalInput, localInput } from '../../components/zone';

export const REPEATS = ['none', 'daily', 'weekly', 'monthly', 'raw'] as const;
export type Repeat = (typeof REPEATS)[number];
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const OPS = ['eq', 'neq', 'in', 'nin', 'contains', 'startsWith', 'matches', 'exists'] as const;
export type Op = (typeof OPS)[number];

export interface MatcherForm {
  field: string;
  op: Op;
  /** As typed: a list is comma-separated; `exists` takes "true" or "false". */
  value: string;
}

export interface WindowForm {
  name: string;
  description: string;
  /** `datetime-local` values in `timezone`. */
  start: string;
  end: string;
  timezone: string;
  repeat: Repeat;
  interval: string;
  weekdays: Weekday[];
  raw: string;
  matchers: MatcherForm[];
  clientId: string;
}

/** The RRULE the recurrence fields stand for; null for a one-off window. */
export function ruleOf(f: Pick<WindowForm, 'repeat' | 'interval' | 'weekdays' | 'raw'>): string | null {
  if (f.repeat === 'none') return null;
  if (f.repeat === 'raw') return f.raw;
  const n = f.interval.trim();
  const every = n === '' || n === '1' ? '' : `;INTERVAL=${n}`;
  if (f.repeat === 'weekly') return `FREQ=WEEKLY${every}${f.weekdays.length > 0 ? `;BYDAY=${f.weekdays.join(',')}` : ''}`;
  return `FREQ=${f.repeat.toUpperCase()}${every}`;
}

/** The recurrence fields of a stored RRULE: the form's own shapes when it is one of them, else the raw rule. */
export function repeatOf(rule: string | null): Pick<WindowForm, 'repeat' | 'interval' | 'weekdays' | 'raw'> {
  const base = { repeat: 'none' as Repeat, interval: '1', weekdays: [] as Weekday[], raw: rule ?? '' };
  if (rule === null) return base;
  const parts = new Map(rule.split(';').map((p) => p.split('=') as [string, string]));
  const freq = parts.get('FREQ');
  const known = [...parts.keys()].every((k) => k === 'FREQ' || k === 'INTERVAL' || (k === 'BYDAY' && freq === 'WEEKLY'));
  const days = (parts.get('BYDAY') ?? '').split(',').filter(Boolean);
  const plainDays = days.every((d): d is Weekday => (WEEKDAYS as readonly string[]).includes(d));
  if (!known || !plainDays || (freq !== 'DAILY' && freq !== 'WEEKLY' && freq !== 'MONTHLY')) return { ...base, repeat: 'raw' };
  return { ...base, repeat: freq.toLowerCase() as Repeat, interval: parts.get('INTERVAL') ?? '1', weekdays: WEEKDAYS.filter((d) => days.includes(d)) };
}

export const DAY_NAMES: Record<Weekday, string> = { MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday' };

/** A stored rule in words ("Every 2 weeks on Monday, Saturday"); null for a rule the form cannot say, shown as it is. */
export function recurrenceInWords(rule: string | null): string | null {
  const r = repeatOf(rule);
  if (r.repeat === 'none') return 'Once';
  if (r.repeat === 'raw') return null;
  const unit = { daily: 'day', weekly: 'week', monthly: 'month' }[r.repeat];
  const n = Number(r.interval);
  const every = n === 1 ? `Every ${unit}` : `Every ${plural(n, unit)}`;
  return r.weekdays.length > 0 ? `${every} on ${r.weekdays.map((d) => DAY_NAMES[d]).join(', ')}` : every;
}

const valueOf = (m: MatcherForm): Matcher['value'] => {
  if (m.op === 'exists') return m.value !== 'false';
  if (m.op === 'in' || m.op === 'nin') return m.value.split(',').map((v) => v.trim()).filter(Boolean);
  return m.value;
};
const textOf = (m: Matcher): string => (Array.isArray(m.value) ? m.value.join(', ') : m.value === undefined ? 'true' : String(m.value));

/** The body the form stands for; a start or end it cannot read is passed on as typed, for the server to refuse in its words. */
export function bodyOf(f: WindowForm): CreateSuppressionBody {
  const iso = (v: string) => {
    const t = fromLocalInput(v, f.timezone);
    return Number.isNaN(t) ? v : new Date(t).toISOString();
  };
  return {
    name: f.name,
    description: f.description.trim() === '' ? null : f.description,
    startsAt: iso(f.start),
    endsAt: iso(f.end),
    timezone: f.timezone,
    recurrence: ruleOf(f),
    matchers: f.matchers.map((m) => ({ field: m.field, op: m.op, value: valueOf(m) })),
    clientId: f.clientId === '' ? null : f.clientId,
  };
}

export function formOf(w: SuppressionWindow): WindowForm {
  return {
    name: w.name,
    description: w.description ?? '',
    start: localInput(Date.parse(w.startsAt), w.timezone),
    end: localInput(Date.parse(w.endsAt), w.timezone),
    timezone: w.timezone,
    ...repeatOf(w.recurrence),
    matchers: w.matchers.map((m) => ({ field: m.field, op: m.op, value: textOf(m) })),
    clientId: w.clientId ?? '',
  };
}

/** A new window: the next whole hour, for an hour, in the viewer's zone. */
export function newWindow(zone: string, now: number): WindowForm {
  const start = Math.ceil(now / 3_600_000) * 3_600_000;
  return {
    name: '', description: '', start: localInput(start, zone), end: localInput(start + 3_600_000, zone), timezone: zone,
    repeat: 'none', interval: '1', weekdays: [], raw: '', matchers: [], clientId: '',
  };
}

/** The most matchers a window takes (the API's limit). */
const MAX_MATCHERS = 50;

/**
 * A window for alerts like this one, from this minute for an hour: one `equals` per label (an alert without
 * labels: its fingerprint), and its client. The person narrows or widens it before saving.
 */
export function windowFromAlert(alert: Pick<Alert, 'title' | 'labels' | 'fingerprint' | 'clientId'>, zone: string, now: number): WindowForm {
  const start = Math.floor(now / 60_000) * 60_000;
  const labels = Object.entries(alert.labels).slice(0, MAX_MATCHERS);
  return {
    ...newWindow(zone, now),
    name: `Like: ${alert.title}`.slice(0, 200),
    start: localInput(start, zone),
    end: localInput(start + 3_600_000, zone),
    matchers: labels.length > 0
      ? labels.map(([k, v]): MatcherForm => ({ field: `labels.${k}`, op: 'eq', value: v }))
      : [{ field: 'fingerprint', op: 'eq', value: alert.fingerprint }],
    clientId: alert.clientId ?? '',
  };
}
