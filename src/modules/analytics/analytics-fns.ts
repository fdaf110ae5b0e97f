import type { AnalyticsCounts } from '../../db/schema.ts';
import { weekdayOf, zoneClock } from '../schedules/zone-fns.ts';

/**
 * Analytics rollups, pure: what a change of an alert, incident or page adds to the counters (docs/analytics.md),
 * and how counted rows are read back into buckets and percentiles. The alert writer hands its changes here as
 * facts, in the transaction of the change; nothing reads raw alerts to answer an analytics question.
 */

export const HOUR_MS = 3_600_000;
/** An alert resolved this soon after it opened is a candidate to tune (`quickResolves`). */
export const QUICK_RESOLVE_MS = 60_000;
/** Label values and titles are cut to this in rollup keys (a key of kilobytes would bloat every index). */
const KEY_MAX = 200;

export const MEASURES = ['alerts', 'occurrences', 'quickResolves', 'incidents', 'pages', 'flaps'] as const;
export type Measure = (typeof MEASURES)[number];
export type Counts = Record<Measure, number>;
/** Each measure's column in the rollup tables. */
export const COLUMNS: Readonly<Record<Measure, keyof AnalyticsCounts>> = {
  alerts: 'alerts', occurrences: 'occurrences', quickResolves: 'quick_resolves', incidents: 'incidents', pages: 'pages', flaps: 'flaps',
};
export const zeroCounts = (): Counts => ({ alerts: 0, occurrences: 0, quickResolves: 0, incidents: 0, pages: 0, flaps: 0 });

/** What analytics knows of an alert: its dimensions. */
export interface AlertDims {
  orgId: string;
  severity: string;
  clientId: string | null;
  integrationId: string | null;
  fingerprint: string;
  title: string;
  labels: Readonly<Record<string, string>>;
}

/** An organization's analytics settings: the zone its days are counted in, the label keys rolled up. */
export interface OrgAnalytics {
  zone: string;
  labels: readonly string[];
}

/** A change analytics counts; `at` is when it happened. */
export type Fact =
  | { kind: 'alert_created'; alert: AlertDims; at: number }
  /** A payload deduplicated into an open alert (`times` of them, merged by a batch). */
  | { kind: 'alert_repeated'; alert: AlertDims; at: number; times: number }
  /** Counted only when quick, in the hour the alert opened (so it compares with that hour's `alerts`). */
  | { kind: 'alert_resolved'; alert: AlertDims; openedAt: number; at: number }
  /** Dimensions of the incident's first alert, with the incident's severity. */
  | { kind: 'incident_opened'; alert: AlertDims; at: number }
  /** A page delivered about the alert; `person` when it went to a member (their zone decides night or day). */
  | { kind: 'page_sent'; alert: AlertDims; at: number; person: { userId: string; zone: string } | null }
  | { kind: 'flap_started'; alert: AlertDims; at: number };

/** An alert before or after a change, as the alert writer reads it (`labels` as stored: JSON text or an object). */
export interface ChangedAlert {
  org_id: string;
  status: string;
  occurrences: number;
  severity: string;
  title: string;
  fingerprint: string;
  client_id: string | null;
  integration_id: string | null;
  labels: unknown;
  created_at: number;
  updated_at: number;
}

const dimsOf = (a: ChangedAlert): AlertDims => ({
  orgId: a.org_id, severity: a.severity, clientId: a.client_id, integrationId: a.integration_id, fingerprint: a.fingerprint, title: a.title,
  labels: (typeof a.labels === 'string' ? JSON.parse(a.labels) : a.labels ?? {}) as Record<string, string>,
});

/** An alert's fingerprint started flapping with its change at `at` (alerts/flap-fns.ts). */
export const flapStarted = (a: ChangedAlert, at: number): Fact => ({ kind: 'flap_started', alert: dimsOf(a), at });

/** What analytics counts of one change of an alert (before null: it was created): see `Fact`. */
export function changeFacts(before: ChangedAlert | null, after: ChangedAlert): Fact[] {
  const out: Fact[] = [];
  if (before === null) out.push({ kind: 'alert_created', alert: dimsOf(after), at: after.created_at });
  else if (after.occurrences > before.occurrences) out.push({ kind: 'alert_repeated', alert: dimsOf(after), at: after.updated_at, times: after.occurrences - before.occurrences });
  if (after.status === 'resolved' && before?.status !== 'resolved' && after.updated_at - after.created_at < QUICK_RESOLVE_MS) {
    out.push({ kind: 'alert_resolved', alert: dimsOf(after), openedAt: after.created_at, at: after.updated_at });
  }
  return out;
}

export type CountRow = Partial<Counts> & { dim: string; time: number; key: string };
/** `day` is the local day's start, or the local month's in `noisyMonthly`. */
export type NoisyRow = Partial<Counts> & { day: number; integrationId: string; fingerprint: string; clientId: string; title: string };
export interface PageRow {
  day: number;
  userId: string;
  clientId: string;
  working: number;
  offHours: number;
}

/** What a set of facts adds, merged by row key; `orgId` on each map entry's row. */
export interface Deltas {
  hourly: Map<string, CountRow & { orgId: string }>;
  daily: Map<string, CountRow & { orgId: string }>;
  noisy: Map<string, NoisyRow & { orgId: string }>;
  noisyMonthly: Map<string, NoisyRow & { orgId: string }>;
  pages: Map<string, PageRow & { orgId: string }>;
}

const cut = (s: string): string => (s.length > KEY_MAX ? s.slice(0, KEY_MAX) : s);

/** The dimension values of an alert: each dimension's rows add up to the organization's total ('' = none). */
export function dimensions(a: AlertDims, labelKeys: readonly string[]): Array<[string, string]> {
  return [
    ['severity', a.severity],
    ['client', a.clientId ?? ''],
    ['integration', a.integrationId ?? ''],
    ...labelKeys.map((k): [string, string] => [`label:${k}`, cut(a.labels[k] ?? '')]),
  ];
}

/** The instant the local day containing `at` starts, in `zone`. */
export function dayStart(at: number, zone: string): number {
  const clock = zoneClock(zone);
  const w = clock.wall(at);
  return clock.instant({ year: w.year, month: w.month, day: w.day, hour: 0, minute: 0 });
}

/** The instant the local month containing `at` starts, in `zone`. */
export function monthStart(at: number, zone: string): number {
  const clock = zoneClock(zone);
  const w = clock.wall(at);
  return clock.instant({ year: w.year, month: w.month, day: 1, hour: 0, minute: 0 });
}

/** Working hours: Monday to Friday, 09:00 to 18:00 on the person's own clock; the rest is nights and weekends. */
export function isWorkingHours(at: number, zone: string): boolean {
  const w = zoneClock(zone).wall(at);
  return weekdayOf(w) <= 5 && w.hour >= 9 && w.hour < 18;
}

function add<T extends Partial<Counts>>(map: Map<string, T>, key: string, make: () => NoInfer<T>, counts: Partial<Counts>): T {
  let row = map.get(key);
  if (!row) map.set(key, (row = make()));
  for (const m of MEASURES) {
    const n = counts[m];
    if (n) row[m] = (row[m] ?? 0) + n;
  }
  return row;
}

/** What a fact adds to the counters, and when it counts. */
function countsOf(f: Fact): { at: number; counts: Partial<Counts> } | null {
  switch (f.kind) {
    case 'alert_created': return { at: f.at, counts: { alerts: 1, occurrences: 1 } };
    case 'alert_repeated': return { at: f.at, counts: { occurrences: f.times } };
    case 'alert_resolved': return f.at - f.openedAt < QUICK_RESOLVE_MS ? { at: f.openedAt, counts: { quickResolves: 1 } } : null;
    case 'incident_opened': return { at: f.at, counts: { incidents: 1 } };
    case 'page_sent': return { at: f.at, counts: { pages: 1 } };
    case 'flap_started': return { at: f.at, counts: { flaps: 1 } };
  }
}

export const emptyDeltas = (): Deltas => ({ hourly: new Map(), daily: new Map(), noisy: new Map(), noisyMonthly: new Map(), pages: new Map() });

/** The rows a batch of facts adds to, merged: one upsert per row however many facts touch it. */
export function rollup(facts: readonly Fact[], settingsOf: (orgId: string) => OrgAnalytics, into: Deltas = emptyDeltas()): Deltas {
  for (const f of facts) {
    const c = countsOf(f);
    if (!c) continue;
    const a = f.alert;
    const org = settingsOf(a.orgId);
    const hour = Math.floor(c.at / HOUR_MS) * HOUR_MS;
    const day = dayStart(c.at, org.zone);
    for (const [dim, key] of dimensions(a, org.labels)) {
      add(into.hourly, `${a.orgId}\u0000${dim}\u0000${hour}\u0000${key}`, () => ({ orgId: a.orgId, dim, time: hour, key }), c.counts);
      add(into.daily, `${a.orgId}\u0000${dim}\u0000${day}\u0000${key}`, () => ({ orgId: a.orgId, dim, time: day, key }), c.counts);
    }
    // An incident is not one alert's noise: the noisy list counts what alerts did and caused.
    if (f.kind !== 'incident_opened') {
      const integrationId = a.integrationId ?? '';
      const fingerprint = cut(a.fingerprint);
      for (const [map, start] of [[into.noisy, day], [into.noisyMonthly, monthStart(c.at, org.zone)]] as const) {
        const clientId = a.clientId ?? '';
        const row = add(map, `${a.orgId}\u0000${start}\u0000${integrationId}\u0000${fingerprint}\u0000${clientId}`,
          () => ({ orgId: a.orgId, day: start, integrationId, fingerprint, clientId, title: cut(a.title) }), c.counts);
        // The latest title wins, as it does on the alert.
        row.title = cut(a.title);
      }
    }
    if (f.kind === 'page_sent' && f.person) {
      const clientId = a.clientId ?? '';
      const key = `${a.orgId}\u0000${day}\u0000${f.person.userId}\u0000${clientId}`;
      let row = into.pages.get(key);
      if (!row) into.pages.set(key, (row = { orgId: a.orgId, day, userId: f.person.userId, clientId, working: 0, offHours: 0 }));
      if (isWorkingHours(f.at, f.person.zone)) row.working += 1;
      else row.offHours += 1;
    }
  }
  return into;
}

/** Rows in key order: two transactions that touch the same rows lock them in the same order. */
export const sortedRows = <T,>(map: Map<string, T>): T[] => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);

// ---- Reading back ----

export const BUCKETS = ['hour', 'day', 'week', 'month'] as const;
export type Bucket = (typeof BUCKETS)[number];
/** The longest range each bucket answers (points on a chart, rows read). */
export const MAX_RANGE_DAYS: Readonly<Record<Bucket, number>> = { hour: 7, day: 400, week: 400, month: 400 };

/**
 * The buckets covering [from, to): starts of UTC hours, or of local days, weeks (Monday) or months in `zone`.
 * The range is widened to whole buckets; the last element is the end of the last bucket. Days are 23 or 25
 * hours long across a DST change, as the zone's clocks say.
 */
export function bucketEdges(from: number, to: number, bucket: Bucket, zone: string): number[] {
  if (bucket === 'hour') {
    const edges: number[] = [];
    for (let t = Math.floor(from / HOUR_MS) * HOUR_MS; ; t += HOUR_MS) {
      edges.push(t);
      if (t >= to) break;
    }
    return edges;
  }
  const clock = zoneClock(zone);
  const w = clock.wall(from);
  let cursor = { year: w.year, month: w.month, day: w.day, hour: 0, minute: 0 };
  if (bucket === 'week') cursor = shiftDays(cursor, 1 - weekdayOf(cursor));
  if (bucket === 'month') cursor = { ...cursor, day: 1 };
  const edges: number[] = [];
  for (;;) {
    const t = clock.instant(cursor);
    edges.push(t);
    if (t >= to) break;
    cursor = bucket === 'day' ? shiftDays(cursor, 1) : bucket === 'week' ? shiftDays(cursor, 7) : nextMonth(cursor);
  }
  return edges;
}

type Day = { year: number; month: number; day: number; hour: number; minute: number };
const shiftDays = (d: Day, n: number): Day => {
  const x = new Date(Date.UTC(d.year, d.month - 1, d.day + n));
  return { year: x.getUTCFullYear(), month: x.getUTCMonth() + 1, day: x.getUTCDate(), hour: 0, minute: 0 };
};
const nextMonth = (d: Day): Day => (d.month === 12 ? { ...d, year: d.year + 1, month: 1 } : { ...d, month: d.month + 1 });

/** The starts of the last `n` local days up to the one containing `at` (today last), and the end of today. */
export function lastDays(at: number, n: number, zone: string): number[] {
  const clock = zoneClock(zone);
  const w = clock.wall(at);
  const first = shiftDays({ year: w.year, month: w.month, day: w.day, hour: 0, minute: 0 }, 1 - n);
  return bucketEdges(clock.instant(first), at + 1, 'day', zone);
}

/**
 * A range of whole local days split for the noisy lists: the whole local months inside it (read from monthly rows)
 * and the days before and after them (read from daily rows). Without a whole month inside, all of it is days.
 */
export function splitMonths(from: number, to: number, zone: string): { months: [number, number] | null; days: Array<[number, number]> } {
  const months = bucketEdges(from, to, 'month', zone);
  const inside = months.filter((m) => m >= from && m <= to);
  if (inside.length < 2) return { months: null, days: [[from, to]] };
  const first = inside[0] as number;
  const last = inside[inside.length - 1] as number;
  return { months: [first, last], days: ([[from, first], [last, to]] as Array<[number, number]>).filter(([a, b]) => b > a) };
}

/** The bucket of an instant: the index i with edges[i] <= t < edges[i + 1], or -1 outside. */
export function bucketOf(edges: readonly number[], t: number): number {
  let lo = 0;
  let hi = edges.length - 1;
  if (t < (edges[0] as number) || t >= (edges[hi] as number)) return -1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((edges[mid] as number) <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}

export interface Spread {
  count: number;
  /** Milliseconds; null without values. */
  median: number | null;
  p90: number | null;
}

/** The 0-based rank of the nearest-rank percentile p of n sorted values: the smallest with at least p % at or below it. */
const rankOf = (n: number, p: number): number => Math.max(0, Math.ceil((p / 100) * n) - 1);

/**
 * The count, nearest-rank median and p90 of many groups of values at once, exactly: value i (NaN: none) belongs
 * to the group `levels[l][i]` of each level l (-1: none of that level), e.g. everything, its key, its key's
 * bucket. The values are laid out group after group in one typed array and each group's two ranks selected in
 * place, without sorting: a year of incidents by service and month is some 800 groups of 50,000 values
 * (bench/analytics.ts).
 */
export function spreads(values: Float64Array, levels: ReadonlyArray<Int32Array>, groups: number): Spread[] {
  const start = new Int32Array(groups + 1);
  for (let i = 0; i < values.length; i++) {
    if (Number.isNaN(values[i])) continue;
    for (const level of levels) {
      const g = level[i] as number;
      if (g >= 0) start[g + 1] = (start[g + 1] as number) + 1;
    }
  }
  for (let g = 0; g < groups; g++) start[g + 1] = (start[g + 1] as number) + (start[g] as number);
  const all = new Float64Array(start[groups] as number);
  const next = start.slice(0, groups);
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (Number.isNaN(v)) continue;
    for (const level of levels) {
      const g = level[i] as number;
      if (g < 0) continue;
      const at = next[g] as number;
      all[at] = v;
      next[g] = at + 1;
    }
  }
  return Array.from({ length: groups }, (_, g): Spread => {
    const group = all.subarray(start[g], start[g + 1]);
    const count = group.length;
    if (count === 0) return { count, median: null, p90: null };
    // Everything after the median's place is at least the median once it is selected: p90 is selected among those.
    const m = rankOf(count, 50);
    const median = select(group, m);
    return { count, median, p90: select(group.subarray(m), rankOf(count, 90) - m) };
  });
}

/**
 * The k-th smallest value of `a` (0-based), in linear time on average (Hoare's selection), reordering `a` so that
 * no value before position k is greater and none after it smaller. Two ranks of a group need no sort of it.
 */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    const pivot = a[(lo + hi) >> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] as number) < pivot) i++;
      while ((a[j] as number) > pivot) j--;
      if (i <= j) {
        const t = a[i] as number;
        a[i] = a[j] as number;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k] as number;
}

/** A month of the zone's calendar, `YYYY-MM`, as its [from, to) instants. */
export function monthRange(period: string, zone: string): { from: number; to: number } | null {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(period);
  if (!m) return null;
  const clock = zoneClock(zone);
  const first = { year: Number(m[1]), month: Number(m[2]), day: 1, hour: 0, minute: 0 };
  return { from: clock.instant(first), to: clock.instant(nextMonth(first)) };
}

/** The month before the one containing `at`, in the zone: `YYYY-MM`. */
export function previousMonth(at: number, zone: string): string {
  const w = zoneClock(zone).wall(at);
  const year = w.month === 1 ? w.year - 1 : w.year;
  const month = w.month === 1 ? 12 : w.month - 1;
  return `${year}-${String(month).padStart(2, '0')}`;
}

/** The period before a `YYYY-MM` one. */
export function periodBefore(period: string): string {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** Change from `before` to `now` in percent, rounded to one decimal; null when there was nothing before. */
export const trendPercent = (now: number, before: number): number | null => (before === 0 ? null : Math.round(((now - before) / before) * 1000) / 10);

/**
 * The length of the union of intervals clipped to [from, to): how long at least one was open. Intervals with a
 * null end are still open (they end at `to`).
 */
export function coveredMs(intervals: ReadonlyArray<{ start: number; end: number | null }>, from: number, to: number): number {
  const clipped = intervals
    .map((i) => ({ start: Math.max(i.start, from), end: Math.min(i.end ?? to, to) }))
    .filter((i) => i.end > i.start)
    .sort((a, b) => a.start - b.start);
  let total = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const i of clipped) {
    if (i.start > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = i.start;
      curEnd = i.end;
    } else if (i.end > curEnd) curEnd = i.end;
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

/**
 * How much a client needs attention now, for sorting the client board: an open critical alert outweighs any
 * number of incidents and high alerts a board shows, an open incident outweighs high alerts; a client in
 * maintenance keeps a tenth (its alerts are expected).
 */
export function attention(t: { openCritical: number; openHigh: number; openIncidents: number; maintenance: unknown }): number {
  const score = t.openCritical * 10_000 + t.openIncidents * 100 + t.openHigh;
  return t.maintenance === null ? score : Math.floor(score / 10);
}
