import { DateTime } from 'luxon';
import { DAYS } from '../../schedules/rotation-fns.ts';
import { MAX_LAYER_USERS } from '../../schedules/schedules-schemas.ts';
import { DAY_MINUTES, isoMinute, restrictionsOf, rotated, rotationOfHours, startLayerAt, type Window } from '../imports-fns.ts';
import type { Skip, SourceLayer, SourceSchedule } from '../imports-model.ts';
import { num, str, strs, type Json } from './source.ts';

/**
 * Grafana OnCall's on-call shifts as AlertFlow layers and overrides, from grafana/oncall
 * `docs/sources/oncall-api-reference/on_call_shifts.md` (type, level, start, duration, frequency, interval, until,
 * week_start, by_day, by_month, by_monthday, users, rolling_users, start_rotation_from_user_index) and, where the
 * page is silent, the public API serializer `engine/apps/public_api/serializers/on_call_shifts.py` (the
 * `override` type, `rotation_start`, `start` written as wall-clock time) and `engine/apps/schedules/models/
 * custom_on_call_shift.py` (a daily rotation masked by weekdays turns once per masked day, a weekly one at the week
 * start). Pure.
 */

const ICAL_DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const UNIT_HOURS: Record<string, number> = { hourly: 1, daily: 24, weekly: 168 };
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export interface ShiftOut {
  level: number;
  layers: SourceLayer[];
  overrides: SourceSchedule['overrides'];
}

/** `yyyy-MM-ddTHH:mm:ss`, the wall-clock time OnCall writes, in `zone`. */
const wall = (text: string | null, zone: string): DateTime => DateTime.fromISO(text ?? '', { zone });

/** Each turn's first person; the others who share the turn are listed as not carried over. */
function firsts(groups: string[][], where: Skip, skips: Skip[]): string[] {
  return groups.flatMap((g) => {
    if (g.length > 1) skips.push({ ...where, reason: `${g.slice(1).join(', ')} share a turn with ${g[0]}: an AlertFlow layer has one person at a time, the first is kept` });
    return g.length > 0 ? [g[0] as string] : [];
  });
}

/**
 * A daily rotation masked by weekdays, with several people: OnCall hands over at every masked day, so the
 * person on a weekday repeats every few weeks. One weekly layer per weekday gives exactly that.
 */
function perWeekday(name: string, first: DateTime, days: number[], people: string[], interval: number, minutes: number): SourceLayer[] | null {
  const order = [...days].sort((a, b) => ((a - (first.weekday - 1) + 7) % 7) - ((b - (first.weekday - 1) + 7) % 7));
  const k = order.length;
  const period = (interval * people.length) / gcd(k, interval * people.length);
  if (period > MAX_LAYER_USERS) return null;
  return order.map((day, p) => ({
    name: `${name} (${DAYS[day]})`.slice(0, 100),
    startsAt: first.plus({ days: (day - (first.weekday - 1) + 7) % 7 }).toMillis(),
    rotation: 'weekly' as const,
    shiftHours: null,
    users: Array.from({ length: period }, (_, w) => people[Math.floor((p + k * w) / interval) % people.length] as string),
    restrictions: restrictionsOf([{ day, startMinute: first.hour * 60 + first.minute, minutes }]) ?? [],
  }));
}

/** One shift, its times read in `zone` (its own, or its schedule's when it names none). */
export function oncallShift(sh: Json, zone: string, now: number, skips: Skip[]): ShiftOut | null {
  const name = str(sh.name) ?? str(sh.id) ?? 'shift';
  const where = { kind: 'oncall_shift', sourceId: str(sh.id) ?? '', name, reason: '' };
  const type = str(sh.type) ?? '';
  const start = wall(str(sh.start), zone);
  const seconds = num(sh.duration) ?? 0;
  const minutes = Math.round(seconds / 60);
  const level = num(sh.level) ?? 0;
  if (!start.isValid || seconds <= 0) {
    skips.push({ ...where, reason: 'has no start or duration' });
    return null;
  }
  if (seconds % 60 !== 0) skips.push({ ...where, reason: 'its length is not whole minutes: AlertFlow restrictions are to the minute' });
  const users = strs(sh.users);

  if (type === 'single_event' || type === 'override') {
    const endsAt = start.toMillis() + seconds * 1000;
    if (endsAt <= now) return { level, layers: [], overrides: [] };
    const who = firsts([users], where, skips);
    if (type === 'single_event') skips.push({ ...where, reason: 'a one-off shift: AlertFlow makes it an override, which beats every layer whatever its level' });
    return { level, layers: [], overrides: who.map((user) => ({ user, startsAt: start.toMillis(), endsAt })) };
  }
  const frequency = str(sh.frequency) ?? '';
  const unit = UNIT_HOURS[frequency];
  if (unit === undefined) {
    skips.push({ ...where, reason: `repeats ${frequency || 'without a frequency'}: AlertFlow rotations turn hourly, daily or weekly` });
    return null;
  }
  if (Array.isArray(sh.by_month) && sh.by_month.length > 0 || Array.isArray(sh.by_monthday) && sh.by_monthday.length > 0) {
    skips.push({ ...where, reason: 'limited to some months or days of the month: AlertFlow restrictions are by weekday and time' });
    return null;
  }
  const until = str(sh.until) ? wall(str(sh.until), zone).toMillis() : null;
  if (until !== null && until <= now) {
    skips.push({ ...where, reason: `ended ${isoMinute(until)} UTC` });
    return null;
  }
  const groups: string[][] = type === 'rolling_users'
    ? (Array.isArray(sh.rolling_users) ? sh.rolling_users.map(strs) : [])
    : [users];
  const people = rotated(firsts(groups, where, skips), num(sh.start_rotation_from_user_index) ?? 0);
  if (people.length === 0) {
    skips.push({ ...where, reason: 'nobody is on it' });
    return null;
  }
  const interval = Math.max(1, num(sh.interval) ?? 1);
  const days = strs(sh.by_day).map((d) => ICAL_DAYS.indexOf(d)).filter((d) => d >= 0);
  const startMinute = start.hour * 60 + start.minute;
  let layers: SourceLayer[] | null;

  if (days.length === 0 || (days.length === 7 && frequency === 'daily')) {
    const hours = interval * unit;
    const windows: Window[] | null = minutes >= hours * 60 ? []
      : frequency === 'daily' && interval === 1 ? [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, startMinute, minutes }))
        : frequency === 'weekly' && interval === 1 ? [{ day: start.weekday - 1, startMinute, minutes }] : null;
    layers = windows === null ? null : [{ name, startsAt: start.toMillis(), ...rotationOfHours(hours), users: people, restrictions: restrictionsOf(windows) ?? [] }];
    if (windows === null) skips.push({ ...where, reason: `on call ${minutes} minutes of every ${hours} hours: AlertFlow restrictions repeat every day or week` });
  } else if (minutes > DAY_MINUTES || frequency === 'hourly') {
    skips.push({ ...where, reason: frequency === 'hourly' ? 'hourly turns on chosen weekdays: AlertFlow cannot' : 'turns longer than a day on chosen weekdays: AlertFlow cannot' });
    layers = null;
  } else if (frequency === 'weekly') {
    // A weekly rotation hands over at the week's start (`week_start`) at the shift's time of day.
    const weekStart = ICAL_DAYS.indexOf(str(sh.week_start) ?? 'SU');
    const anchor = start.minus({ days: (start.weekday - 1 - weekStart + 7) % 7 });
    layers = [{
      name, startsAt: anchor.toMillis(), ...rotationOfHours(168 * interval), users: people,
      restrictions: restrictionsOf(days.map((day) => ({ day, startMinute, minutes }))) ?? [],
    }];
  } else if (people.length === 1) {
    layers = [{ name, startsAt: start.toMillis(), rotation: 'daily', shiftHours: null, users: people, restrictions: restrictionsOf(days.map((day) => ({ day, startMinute, minutes }))) ?? [] }];
  } else {
    // The first masked day at or after the start.
    let first = start;
    while (!days.includes(first.weekday - 1)) first = first.plus({ days: 1 });
    layers = perWeekday(name, first, days, people, interval, minutes);
    if (layers === null) skips.push({ ...where, reason: `its turns repeat only every ${interval * people.length} masked days: more than AlertFlow's ${MAX_LAYER_USERS} turns per layer` });
  }
  if (layers === null) return null;

  const rotationStart = str(sh.rotation_start) ? wall(str(sh.rotation_start), zone).toMillis() : null;
  if (rotationStart !== null && rotationStart > now) {
    layers = layers.map((l) => {
      const started = startLayerAt(l, zone, rotationStart);
      if (!started.exact) skips.push({ ...where, reason: `its rotation starts ${isoMinute(rotationStart)} UTC, inside a turn: AlertFlow starts it at that turn's end` });
      return started.layer;
    });
  }
  if (until !== null) skips.push({ ...where, reason: `ends ${isoMinute(until)} UTC: AlertFlow layers have no end, so it goes on after that` });
  return { level, layers, overrides: [] };
}
