import type { WorkBudget } from '../../lib/work-budget.ts';
import { addDays, DAY_MS, weekdayOf, zoneClock, type Wall } from './zone-fns.ts';

/**
 * One layer of a schedule on its own: who its rotation puts on call when, and the windows its
 * restrictions leave open. Pure, on instants (epoch milliseconds); every wall-clock reading goes
 * through the schedule's IANA zone with offsets from luxon (zone-fns.ts), never a hand-made offset.
 * Expanding a range takes its work from a WorkBudget when one is given (a handoff, a restriction window:
 * a unit each), and throws WorkLimitReached once it is spent.
 */

export const ROTATIONS = ['hourly', 'daily', 'weekly', 'custom'] as const;
export type Rotation = (typeof ROTATIONS)[number];
/** Weekday names in luxon's order (`weekday` 1 is Monday). */
export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];

export const HOUR_MS = 3_600_000;
export { DAY_MS };

/** The layer has somebody on call only inside these windows: each listed day, `from` to `to` (HH:MM). */
export interface Restriction {
  days: Day[];
  /** Local start time on a listed day. */
  from: string;
  /** Local end time; `to` ≤ `from` runs overnight into the next day (`to` = `from`: 24 hours). */
  to: string;
}

export interface Layer {
  name: string;
  /** The first shift starts here, with `users[0]`. */
  startsAt: number;
  rotation: Rotation;
  /** Length of a `custom` shift; null for the other rotations. */
  shiftHours: number | null;
  users: string[];
  restrictions: Restriction[];
}

/** A stretch of time with one user on call (or nobody: `userId` null). End exclusive. */
export interface Span {
  start: number;
  end: number;
  userId: string | null;
}

/** The start of shift `k` (k ≥ 0) and the index of the shift under way at an instant. */
interface Rotor {
  handoff(k: number): number;
  /** The shift under way at `t` (−1 before the layer starts). */
  indexAt(t: number): number;
}

/**
 * `hourly` and `custom` shifts last a fixed time (1 h, `shiftHours` h) in absolute time. `daily` and
 * `weekly` handoffs keep the wall-clock time of `startsAt` in `zone`, so a daily shift over the
 * spring-forward night lasts 23 h and over the fall-back night 25 h.
 */
function rotor(layer: Layer, zone: string): Rotor {
  const start = layer.startsAt;
  if (layer.rotation === 'hourly' || layer.rotation === 'custom') {
    const length = (layer.rotation === 'hourly' ? 1 : (layer.shiftHours ?? 1)) * HOUR_MS;
    return {
      handoff: (k) => start + k * length,
      indexAt: (t) => (t < start ? -1 : Math.floor((t - start) / length)),
    };
  }
  const step = layer.rotation === 'daily' ? 1 : 7;
  const clock = zoneClock(zone);
  const first = clock.wall(start);
  // Shift 0 starts at startsAt itself, even when it is the second reading of an hour shown twice.
  const handoff = (k: number): number => (k === 0 ? start : clock.instant(addDays(first, k * step)));
  return {
    handoff,
    indexAt(t) {
      if (t < start) return -1;
      // A local day lasts 23–25 h: the estimate is off by at most one shift either way.
      let k = Math.floor((t - start) / (step * DAY_MS));
      while (k > 0 && handoff(k) > t) k -= 1;
      while (handoff(k + 1) <= t) k += 1;
      return k;
    },
  };
}

/** The rotation's shifts within [from, to), cut to it; nothing before `startsAt`. Adjacent shifts of one user are joined. */
export function rotationSpans(layer: Layer, zone: string, from: number, to: number, budget?: WorkBudget): Span[] {
  if (to <= layer.startsAt || to <= from || layer.users.length === 0) return [];
  const r = rotor(layer, zone);
  const spans: Span[] = [];
  let k = r.indexAt(Math.max(from, layer.startsAt));
  let begins = r.handoff(k);
  // A wall-clock handoff reads the zone's clock.
  const unit = layer.rotation === 'daily' || layer.rotation === 'weekly' ? UNITS.wallHandoff : UNITS.handoff;
  while (begins < to) {
    budget?.spend(unit);
    const ends = r.handoff(k + 1);
    const userId = layer.users[k % layer.users.length] as string;
    const last = spans[spans.length - 1];
    if (last && last.userId === userId) last.end = Math.min(ends, to);
    else spans.push({ start: Math.max(begins, from), end: Math.min(ends, to), userId });
    k += 1;
    begins = ends;
  }
  return spans;
}

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** Work units (see WorkBudget) of a rotation handoff, one on a zone's wall clock, a local day looked at, and a restriction window made. */
const UNITS = { handoff: 1, wallHandoff: 60, day: 40, window: 200 } as const;

/**
 * The instants the restrictions leave open within [from, to), as sorted, disjoint [start, end) pairs
 * cut to the range. A window belongs to the day it starts on: `mon 22:00–06:00` is Monday 22:00 to
 * Tuesday 06:00. A window whose local times a DST change makes empty is no window.
 */
export function restrictionWindows(restrictions: readonly Restriction[], zone: string, from: number, to: number, budget?: WorkBudget): Array<[number, number]> {
  if (to <= from) return [];
  const raw: Array<[number, number]> = [];
  const clock = zoneClock(zone);
  const parsed = restrictions.map((r) => ({ days: new Set(r.days), from: minutesOf(r.from), to: minutesOf(r.to) }));
  // From the day before `from` (an overnight window may reach into it) to the day of `to`.
  const f = clock.wall(from);
  let day: Wall = addDays({ year: f.year, month: f.month, day: f.day, hour: 0, minute: 0 }, -1);
  const l = clock.wall(to);
  const lastKey = l.year * 10_000 + l.month * 100 + l.day;
  while (day.year * 10_000 + day.month * 100 + day.day <= lastKey) {
    budget?.spend(UNITS.day);
    const weekday = DAYS[weekdayOf(day) - 1] as Day;
    for (const r of parsed) {
      if (!r.days.has(weekday)) continue;
      budget?.spend(UNITS.window);
      const start = clock.instant({ ...day, hour: Math.floor(r.from / 60), minute: r.from % 60 });
      const endDay = r.to > r.from ? day : addDays(day, 1);
      const end = clock.instant({ ...endDay, hour: Math.floor(r.to / 60), minute: r.to % 60 });
      const s = Math.max(start, from);
      const e = Math.min(end, to);
      if (e > s) raw.push([s, e]);
    }
    day = addDays(day, 1);
  }
  raw.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const w of raw) {
    const last = merged[merged.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else merged.push([w[0], w[1]]);
  }
  return merged;
}

/** The parts of `spans` inside the windows (both sorted and disjoint). */
function intersect(spans: Span[], windows: Array<[number, number]>): Span[] {
  const out: Span[] = [];
  let w = 0;
  for (const s of spans) {
    while (w < windows.length && (windows[w] as [number, number])[1] <= s.start) w += 1;
    for (let i = w; i < windows.length; i++) {
      const [ws, we] = windows[i] as [number, number];
      if (ws >= s.end) break;
      out.push({ start: Math.max(s.start, ws), end: Math.min(s.end, we), userId: s.userId });
    }
  }
  return out;
}

/**
 * Who the layer puts on call within [from, to): its rotation's shifts inside its restriction windows
 * (the rotation goes on underneath a restriction: it only hides the shift). Sorted, disjoint; the time
 * between spans has nobody on call from this layer.
 */
export function layerSpans(layer: Layer, zone: string, from: number, to: number, budget?: WorkBudget): Span[] {
  const spans = rotationSpans(layer, zone, from, to, budget);
  if (layer.restrictions.length === 0 || spans.length === 0) return spans;
  const first = spans[0] as Span;
  const last = spans[spans.length - 1] as Span;
  const windows = restrictionWindows(layer.restrictions, zone, first.start, last.end, budget);
  budget?.spend(spans.length + windows.length);
  return intersect(spans, windows);
}
