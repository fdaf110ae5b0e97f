import { DateTime, IANAZone } from 'luxon';
import rrule from 'rrule';

const { RRule } = rrule;
type RuleOptions = ReturnType<typeof RRule.parseString>;

/**
 * When a window is in force. Without `recurrence` it is `[startsAt, endsAt)`. With one, `startsAt` is the
 * first occurrence, every occurrence lasts `endsAt − startsAt`, and the RFC 5545 RRULE is evaluated on the
 * wall clock of `timezone`: a window every Saturday at 22:00 in Europe/Berlin starts at 22:00 Berlin time on
 * both sides of a DST change. Pure: no I/O, no clock; times are epoch milliseconds.
 *
 * How: the rule runs on "floating" time, the local wall-clock time written as if it were UTC (so the rule
 * engine never meets an offset), and each occurrence's wall-clock time is mapped back to a real instant by
 * luxon's zone data for the window's zone. A wall-clock time that a DST change skips moves forward by the
 * gap (02:30 on the spring-forward night is 03:30); one it repeats takes its first instant (RFC 5545 §3.3.5).
 */
export interface Schedule {
  startsAt: number;
  endsAt: number;
  timezone: string;
  recurrence: string | null;
}

export interface Occurrence {
  startsAt: number;
  endsAt: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** How far ahead upcoming occurrences are looked for; bounds the work on rules that rarely occur. */
const HORIZON = 2 * 366 * DAY;

const FREQS = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY'] as const;
const WEEKDAY = '(MO|TU|WE|TH|FR|SA|SU)';
const intList = (min: number, max: number, signed: boolean) => (v: string): boolean =>
  v.split(',').every((part) => {
    if (!/^[+-]?\d{1,3}$/.test(part) || (!signed && /^[+-]/.test(part))) return false;
    const n = Math.abs(Number(part));
    return n >= min && n <= max;
  });
/** Each rule part we accept and how its value must look. DTSTART and TZID come from the window itself. */
const PARTS: Record<string, { check: (v: string) => boolean; expect: string }> = {
  FREQ: { check: (v) => (FREQS as readonly string[]).includes(v), expect: `one of ${FREQS.join(', ')} (windows repeat at most hourly)` },
  INTERVAL: { check: intList(1, 999, false), expect: 'a whole number from 1 to 999' },
  COUNT: { check: intList(1, 999, false), expect: 'a whole number from 1 to 999' },
  UNTIL: { check: (v) => /^\d{8}(T\d{6}Z?)?$/.test(v), expect: 'a date YYYYMMDD or date-time YYYYMMDDTHHMMSS[Z]' },
  BYSECOND: { check: intList(0, 59, false), expect: 'numbers 0–59' },
  BYMINUTE: { check: intList(0, 59, false), expect: 'numbers 0–59' },
  BYHOUR: { check: intList(0, 23, false), expect: 'numbers 0–23' },
  BYDAY: { check: (v) => v.split(',').every((d) => new RegExp(`^([+-]?[1-9]\\d?)?${WEEKDAY}$`).test(d)), expect: 'weekdays such as MO,TU or 1MO,-1FR' },
  BYMONTHDAY: { check: intList(1, 31, true), expect: 'numbers ±1–31' },
  BYYEARDAY: { check: intList(1, 366, true), expect: 'numbers ±1–366' },
  BYWEEKNO: { check: intList(1, 53, true), expect: 'numbers ±1–53' },
  BYMONTH: { check: intList(1, 12, false), expect: 'numbers 1–12' },
  BYSETPOS: { check: intList(1, 366, true), expect: 'numbers ±1–366' },
  WKST: { check: (v) => new RegExp(`^${WEEKDAY}$`).test(v), expect: 'a weekday such as MO' },
};

export type ParsedRecurrence = { ok: true; rule: string } | { ok: false; message: string };

/**
 * Checks an RRULE (`FREQ=WEEKLY;BYDAY=SA`, optionally prefixed `RRULE:`) strictly: known parts, each once,
 * with well-formed values, FREQ required, not both COUNT and UNTIL. Returns its canonical text.
 */
export function parseRecurrence(text: string): ParsedRecurrence {
  const body = text.trim().replace(/^RRULE:/i, '').toUpperCase();
  if (body === '') return { ok: false, message: 'must not be empty; use null for a window without recurrence' };
  const seen = new Set<string>();
  for (const part of body.split(';')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    const spec = PARTS[name];
    if (!spec) return { ok: false, message: `has an unsupported or unknown part "${name}" (the window's startsAt and timezone take the place of DTSTART and TZID)` };
    if (seen.has(name)) return { ok: false, message: `has ${name} twice` };
    seen.add(name);
    if (!spec.check(value)) return { ok: false, message: `${name} must be ${spec.expect}, got "${value}"` };
  }
  if (!seen.has('FREQ')) return { ok: false, message: 'needs FREQ' };
  if (seen.has('COUNT') && seen.has('UNTIL')) return { ok: false, message: 'cannot have both COUNT and UNTIL' };
  return { ok: true, rule: body };
}

/** An IANA zone name (`Europe/Berlin`, `UTC`); offsets such as `+02:00` are not zones. */
export const isValidTimezone = (tz: string): boolean => /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz) && IANAZone.isValidZone(tz);

/** The wall-clock time of `ms` in `zone`, written as if it were UTC. */
const toFloating = (ms: number, zone: string): number => ms + IANAZone.create(zone).offset(ms) * 60_000;

/**
 * The real instant at which `zone`'s wall clock shows the floating time `floating`, as RFC 5545 §3.3.5
 * reads a local time: one shown twice (autumn) is its first instant; one skipped (spring) is read with the
 * offset in force before the gap, so 02:30 on the night clocks go from 02:00 to 03:00 is 03:30.
 */
function fromFloating(floating: number, zone: string): number {
  const z = IANAZone.create(zone);
  const before = z.offset(floating - DAY);
  const after = z.offset(floating + DAY);
  const shown = [before, after].map((o) => floating - o * 60_000).filter((t) => toFloating(t, zone) === floating);
  return shown.length > 0 ? Math.min(...shown) : floating - before * 60_000;
}

/** The rule's options in floating time: an UNTIL given in UTC (`…Z`) becomes the zone's wall-clock time. */
function ruleOptions(rule: string, zone: string): RuleOptions {
  const options = RRule.parseString(rule);
  if (options.until && /UNTIL=\d{8}T\d{6}Z/.test(rule)) options.until = new Date(toFloating(options.until.getTime(), zone));
  return options;
}

/** Frequencies whose periods are fixed lengths of floating time, so a rule without COUNT can start later. */
const FIXED_STEP: Partial<Record<number, number>> = { [RRule.WEEKLY]: 7 * DAY, [RRule.DAILY]: DAY, [RRule.HOURLY]: HOUR };

/**
 * A later start for the same rule: a whole number of its periods after the first occurrence, at or before
 * `before`. The occurrences from there are the rule's occurrences from there on, so the rule engine need not
 * walk every period since the window was created. COUNT counts from the first occurrence: no shortcut then.
 */
function fastForward(options: RuleOptions, first: number, before: number): number {
  const unit = options.freq === undefined ? undefined : FIXED_STEP[options.freq];
  if (unit === undefined || options.count || before <= first) return first;
  const step = unit * (options.interval ?? 1);
  return first + Math.floor((before - first) / step) * step;
}

/**
 * How many periods of its FREQ one evaluation may walk (see `boundedRule`): about a century of years, months
 * and weeks (a yearly period costs the most), 20,000 days (54 years) or hours (a daily filter skips whole days).
 */
const PERIOD_BUDGET: Record<number, number> = { [RRule.YEARLY]: 100, [RRule.MONTHLY]: 1200, [RRule.WEEKLY]: 5200, [RRule.DAILY]: 20_000, [RRule.HOURLY]: 20_000 };

/**
 * The rule from `dtstart`, cut off after its PERIOD_BUDGET of periods. rrule walks period after period until one
 * yields an occurrence, up to the year 9999 for a rule that never occurs (jkbrzt/rrule#481): seconds of CPU
 * inside one call. Its loop re-reads `options.interval` at each period and stops when it reads 0 (rrule
 * 2.8.1, pinned), so an interval that reads 0 once the budget is spent ends the walk there; what was found
 * by then stands. Legitimate rules need far fewer periods (a century, or 54 years of days). The unit tests pin this.
 */
function boundedRule(options: RuleOptions, dtstart: number) {
  const rule = new RRule({ ...options, dtstart: new Date(dtstart) }, true);
  const { interval, freq } = rule.options;
  const maxReads = 2 * (PERIOD_BUDGET[freq] ?? 0);
  let reads = 0;
  // Two reads per period: the loop's check and the step to the next period.
  Object.defineProperty(rule.options, 'interval', { get: () => (++reads > maxReads ? 0 : interval) });
  return rule;
}

/**
 * Why a recurring window's schedule is unusable, or null: `startsAt` must be the rule's first occurrence (an
 * RRULE whose DTSTART is not one of its occurrences has no defined meaning in RFC 5545), which also refuses
 * a rule with no occurrence at all.
 */
export function recurrenceProblem(s: Schedule & { recurrence: string }): string | null {
  const first = toFloating(s.startsAt, s.timezone);
  const options = ruleOptions(s.recurrence, s.timezone);
  const local = DateTime.fromMillis(s.startsAt, { zone: s.timezone });
  const problem = `startsAt (${local.toFormat('ccc yyyy-MM-dd HH:mm:ss')} in ${s.timezone}) must be the first occurrence of the rule, and it is not one`;
  // rrule steps an HOURLY rule hour by hour until an hour of BYHOUR comes up, forever if none can: refuse
  // before asking it (startsAt's hour must be one of them anyway).
  if (options.freq === RRule.HOURLY && options.byhour !== undefined && options.byhour !== null) {
    if (![options.byhour].flat().includes(local.hour)) return problem;
  }
  let found: number | null = null;
  boundedRule(options, first).all((d) => {
    found = d.getTime();
    return false;
  });
  return found === first ? null : problem;
}

/**
 * Up to `limit` occurrences, earliest first, that have not ended at `at` (so the first one may be under
 * way), looking no further than about two years ahead. Assumes a schedule that passed validation.
 */
export function occurrencesAfter(s: Schedule, at: number, limit: number): Occurrence[] {
  const duration = s.endsAt - s.startsAt;
  if (s.recurrence === null) return s.endsAt > at && limit > 0 ? [{ startsAt: s.startsAt, endsAt: s.endsAt }] : [];
  const zone = s.timezone;
  const first = toFloating(s.startsAt, zone);
  const options = ruleOptions(s.recurrence, zone);
  // Occurrences that may still be under way began after at − duration; a day of margin covers any offset change.
  const from = toFloating(at - duration, zone) - DAY;
  const until = toFloating(at, zone) + HORIZON;
  const found: Occurrence[] = [];
  boundedRule(options, fastForward(options, first, from)).all((d) => {
    const floating = d.getTime();
    if (floating > until) return false;
    const start = floating === first ? s.startsAt : fromFloating(floating, zone);
    if (start + duration > at) found.push({ startsAt: start, endsAt: start + duration });
    // One more than asked: a wall-clock time in a spring-forward gap can map past the next occurrence.
    return found.length <= limit;
  });
  const unique = [...new Map(found.map((o) => [o.startsAt, o])).values()];
  return unique.sort((a, b) => a.startsAt - b.startsAt).slice(0, limit);
}

/** The occurrence under way at `at`, if any. */
export function activeOccurrence(s: Schedule, at: number): Occurrence | null {
  const [next] = occurrencesAfter(s, at, 1);
  return next && next.startsAt <= at ? next : null;
}

export const isActive = (s: Schedule, at: number): boolean => activeOccurrence(s, at) !== null;
