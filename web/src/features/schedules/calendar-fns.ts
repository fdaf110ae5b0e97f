import { DAY_MS, instantOf, wallOf } from '../../components/zone';

export type CalendarView = 'week' | 'month';

export interface CalendarDay {
  /** Local midnight as a wall value (see components/zone). */
  wall: number;
  /** The day's bounds as instants: 23 or 25 hours apart on a DST change. */
  start: number;
  end: number;
  /** Outside the month shown (the month view's leading and trailing days). */
  outside: boolean;
}

export interface CalendarShift {
  userId: string;
  startsAt: string;
  endsAt: string;
  source: 'layer' | 'override';
  layerName?: string;
}

/** Local midnight (wall value) of the day holding the instant `t` in `zone`. */
export const dayOf = (t: number, zone: string): number => Math.floor(wallOf(t, zone) / DAY_MS) * DAY_MS;

const mondayIndex = (wall: number): number => (new Date(wall).getUTCDay() + 6) % 7;

/** The days a view shows around the wall day `anchor`: its Monday-to-Sunday week, or the whole weeks covering its month. */
export function calendarDays(view: CalendarView, anchor: number, zone: string): CalendarDay[] {
  let first: number;
  let count: number;
  let month: number | null = null;
  if (view === 'week') {
    first = anchor - mondayIndex(anchor) * DAY_MS;
    count = 7;
  } else {
    const a = new Date(anchor);
    month = a.getUTCMonth();
    const start = Date.UTC(a.getUTCFullYear(), month, 1);
    const end = Date.UTC(a.getUTCFullYear(), month + 1, 1);
    first = start - mondayIndex(start) * DAY_MS;
    count = Math.ceil((end - first) / DAY_MS / 7) * 7;
  }
  return Array.from({ length: count }, (_, i) => {
    const wall = first + i * DAY_MS;
    return { wall, start: instantOf(wall, zone), end: instantOf(wall + DAY_MS, zone), outside: month !== null && new Date(wall).getUTCMonth() !== month };
  });
}

/** The anchor of the previous or next week or month. */
export function shiftAnchor(view: CalendarView, anchor: number, step: 1 | -1): number {
  if (view === 'week') return anchor + step * 7 * DAY_MS;
  const a = new Date(anchor);
  return Date.UTC(a.getUTCFullYear(), a.getUTCMonth() + step, 1);
}

/** The shifts that intersect a day, earliest first. */
export const shiftsOn = <S extends CalendarShift>(shifts: readonly S[], day: CalendarDay): S[] =>
  shifts.filter((s) => Date.parse(s.startsAt) < day.end && Date.parse(s.endsAt) > day.start);

const WEEK_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * This week's windows of a restriction (days, local `from`–`to` in `zone`; `to` ≤ `from` runs into the next
 * day) as instants, so that they can be read on another clock. This week's: across a DST change the
 * offsets of other weeks differ.
 */
export function restrictionThisWeek(r: { days: readonly string[]; from: string; to: string }, zone: string, now: number): Array<{ start: number; end: number }> {
  const week = calendarDays('week', dayOf(now, zone), zone);
  const from = minutes(r.from) * 60_000;
  const to = minutes(r.to) * 60_000;
  return WEEK_DAYS.flatMap((d, i) => {
    if (!r.days.includes(d)) return [];
    const day = (week[i] as CalendarDay).wall;
    return [{ start: instantOf(day + from, zone), end: instantOf(day + (to > from ? to : to + DAY_MS), zone) }];
  });
}
