import { IANAZone } from 'luxon';

/**
 * Wall-clock readings of an IANA zone, with every UTC offset taken from luxon (the tz database behind
 * Intl). Rotations ask for thousands of readings per request and each luxon offset costs one
 * `Intl.DateTimeFormat#formatToParts` (tens of microseconds), so the offsets are remembered per UTC day:
 * when a day starts and ends on the same offset, that offset holds all day (no zone changes its offset
 * twice in one day and back); on the two days a year it differs, every instant of the day asks luxon.
 * The resolution of local times is luxon's (`DateTime#getPossibleOffsets`), restated on those offsets.
 */

export const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** A wall-clock reading (month 1–12, weekday 1 = Monday … 7 = Sunday, as in luxon). */
export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second?: number;
  millisecond?: number;
}

/** The reading as if it were UTC (setUTCFullYear, unlike Date.UTC, takes years 0–99 as they are). */
const floating = (w: Wall): number => {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  return d.setUTCHours(w.hour, w.minute, w.second ?? 0, w.millisecond ?? 0);
};

const fromFloating = (ms: number): Required<Wall> => {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(),
    hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), millisecond: d.getUTCMilliseconds(),
  };
};

/** Calendar arithmetic, no zone involved: the same reading `days` later (months and years roll over). */
export const addDays = (w: Wall, days: number): Required<Wall> => fromFloating(floating(w) + days * DAY_MS);

/** 1 = Monday … 7 = Sunday, of a reading's date. */
export const weekdayOf = (w: Wall): number => ((new Date(floating(w)).getUTCDay() + 6) % 7) + 1;

export interface ZoneClock {
  /** Offset from UTC in minutes at the instant. */
  offset(at: number): number;
  /** What the zone's clocks show at the instant. */
  wall(at: number): Required<Wall>;
  /**
   * The instant at which the zone's clocks show `w`. A reading skipped by a DST change is read with the
   * offset in force before it, i.e. moved forward by the gap (02:30 on the spring-forward night is
   * 03:30); a reading shown twice is its first instant.
   */
  instant(w: Wall): number;
  /** What the zone's clocks show at the instant, written as if it were UTC ("floating" time). */
  local(at: number): number;
  /** `instant` of a reading given in floating time. */
  fromLocal(local: number): number;
}

const MAX_DAYS_REMEMBERED = 200_000;
const clocks = new Map<string, ZoneClock>();

/** The clock of a valid IANA zone name (check names with `IANAZone.isValidZone` first). */
export function zoneClock(name: string): ZoneClock {
  const known = clocks.get(name);
  if (known) return known;
  const zone = IANAZone.create(name);
  // Offsets in whole milliseconds (local mean times of old dates have offsets in seconds).
  const exact = (at: number): number => Math.round(zone.offset(at) * MINUTE_MS);
  const atMidnight = new Map<number, number>();
  const dayStart = (day: number): number => {
    let o = atMidnight.get(day);
    if (o === undefined) {
      if (atMidnight.size >= MAX_DAYS_REMEMBERED) atMidnight.clear();
      o = exact(day * DAY_MS);
      atMidnight.set(day, o);
    }
    return o;
  };
  const offsetMs = (at: number): number => {
    const day = Math.floor(at / DAY_MS);
    const o = dayStart(day);
    return o === dayStart(day + 1) ? o : exact(at);
  };
  const clock: ZoneClock = {
    offset: (at) => offsetMs(at) / MINUTE_MS,
    wall: (at) => fromFloating(at + offsetMs(at)),
    local: (at) => at + offsetMs(at),
    fromLocal(local) {
      // The offsets in force a day before and a day after: a reading is one of local − offset for those two.
      const before = offsetMs(local - DAY_MS);
      const after = offsetMs(local + DAY_MS);
      const candidates = [local - before, local - after].filter((t) => t + offsetMs(t) === local);
      return candidates.length === 0 ? local - before : Math.min(...candidates);
    },
    instant: (w) => clock.fromLocal(floating(w)),
  };
  clocks.set(name, clock);
  return clock;
}
