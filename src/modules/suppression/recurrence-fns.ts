import { DateTime, IANAZone } from 'luxon';
import rrule from 'rrule';
import { WORK_UNITS_PER_REQUEST, WorkBudget } from '../../lib/work-budget.ts';
import { zoneClock } from '../schedules/zone-fns.ts';

const { RRule, Weekday } = rrule;
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

/** The wall-clock time of `ms` in `zone`, written as if it were UTC (offsets from luxon, remembered per day). */
const toFloating = (ms: number, zone: string): number => zoneClock(zone).local(ms);

/**
 * The real instant at which `zone`'s wall clock shows the floating time `floating`, as RFC 5545 §3.3.5
 * reads a local time: one shown twice (autumn) is its first instant; one skipped (spring) is read with the
 * offset in force before the gap, so 02:30 on the night clocks go from 02:00 to 03:00 is 03:30.
 */
const fromFloating = (floating: number, zone: string): number => zoneClock(zone).fromLocal(floating);

/** The rule's options in floating time: an UNTIL given in UTC (`…Z`) becomes the zone's wall-clock time. */
function ruleOptions(rule: string, zone: string): RuleOptions {
  const options = RRule.parseString(rule);
  if (options.until && /UNTIL=\d{8}T\d{6}Z/.test(rule)) options.until = new Date(toFloating(options.until.getTime(), zone));
  return options;
}

/** The parsed rule: every BY part filled in (rrule takes the defaults from DTSTART, here the first occurrence). */
type Parsed = RRuleType['options'];
type RRuleType = InstanceType<typeof RRule>;

const parsedRule = (options: RuleOptions, dtstart: number): Parsed => new RRule({ ...options, dtstart: new Date(dtstart) }, true).options;

const len = (list: readonly unknown[] | null | undefined): number => list?.length ?? 0;

/** Days rrule looks at in one period of each FREQ (a yearly period's day set is the whole year). */
const PERIOD_DAYS: Record<number, number> = { [RRule.YEARLY]: 366, [RRule.MONTHLY]: 31, [RRule.WEEKLY]: 7, [RRule.DAILY]: 1, [RRule.HOURLY]: 1 };
const PERIOD_NAME: Record<number, string> = { [RRule.YEARLY]: 'year', [RRule.MONTHLY]: 'month', [RRule.WEEKLY]: 'week', [RRule.DAILY]: 'day', [RRule.HOURLY]: 'hour' };
/**
 * Work units (see WorkBudget, about 10 ns each) measured with bench/recurrence-budget.ts: building a rule;
 * stepping to the next period (rrule rebuilds its masks and day set); each day of a period's day set; each
 * candidate time made; each time of a time set built (an hourly rule rebuilds its own every period); and
 * mapping an occurrence near the instant asked about back to a real instant.
 */
const UNITS = { setup: 2000, period: 1300, day: 30, candidate: 3, time: 150, exact: 10 } as const;

/** At most how many days of a period can pass the rule's day filters (an upper bound: the smallest that applies). */
function keptDays(o: Parsed): number {
  const yearly = o.freq === RRule.YEARLY;
  const monthly = o.freq === RRule.MONTHLY;
  const bounds = [PERIOD_DAYS[o.freq] ?? 1];
  if (len(o.bymonth) > 0 && yearly) bounds.push(31 * len(o.bymonth));
  if (len(o.byyearday) > 0) bounds.push(len(o.byyearday));
  const monthDays = len(o.bymonthday) + len(o.bynmonthday);
  if (monthDays > 0 && (yearly || monthly)) bounds.push((yearly ? 12 : 1) * monthDays);
  if (len(o.byweekday) > 0 && (yearly || monthly)) bounds.push((yearly ? 53 : 5) * len(o.byweekday));
  if (len(o.bynweekday) > 0) bounds.push((yearly && len(o.bymonth) > 0 ? 12 : 1) * len(o.bynweekday));
  if (len(o.byweekno) > 0 && yearly) bounds.push(7 * len(o.byweekno));
  return Math.min(...bounds);
}

/**
 * The work of evaluating a rule, in WorkBudget units: once (building it, and the time set of a daily or
 * longer FREQ), and per period walked (its days, each candidate time of the days kept, an hourly rule's
 * time set). rrule makes every candidate of a period before it looks at DTSTART or at what the caller
 * wants, so the candidates, not the occurrences, are the cost: a yearly rule with every BYHOUR, BYMINUTE
 * and BYSECOND has 31.6 million per year.
 */
export function ruleCost(o: Parsed): { setup: number; perPeriod: number; candidates: number } {
  const hourly = o.freq === RRule.HOURLY;
  const times = (hourly ? 1 : Math.max(1, len(o.byhour))) * Math.max(1, len(o.byminute)) * Math.max(1, len(o.bysecond));
  const days = PERIOD_DAYS[o.freq] ?? 1;
  // BYSETPOS picks its positions out of the period's day set, once per position.
  const candidates = len(o.bysetpos) > 0 ? len(o.bysetpos) * (days + 1) : keptDays(o) * times;
  const timeSet = UNITS.time * times;
  return {
    candidates,
    setup: UNITS.setup + (hourly ? 0 : timeSet),
    perPeriod: UNITS.period + UNITS.day * days + UNITS.candidate * candidates + (hourly ? timeSet : 0),
  };
}

/** A rule whose single period costs more than this is refused: a budget must walk at least ten periods. */
export const MAX_PERIOD_UNITS = WORK_UNITS_PER_REQUEST / 10;
/** The same bound in candidate times, as a refusal names it. */
const MAX_PERIOD_CANDIDATES = MAX_PERIOD_UNITS / UNITS.candidate;

/** The first instant of the period (in floating time) `periods` periods of `o.freq` after the one holding `first`. */
function periodStart(o: Parsed, first: number, periods: number): number {
  const d = new Date(first);
  const ms = first % 1000;
  if (o.freq === RRule.YEARLY) return Date.UTC(d.getUTCFullYear() + periods, 0, 1) + ms;
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + periods, 1) + ms;
}

/** The parsed parts as rule options again, so the same rule can start from another DTSTART. */
function pinned(o: Parsed): RuleOptions {
  return {
    freq: o.freq, interval: o.interval, wkst: o.wkst, until: o.until, count: o.count,
    bysetpos: o.bysetpos, bymonth: o.bymonth, byyearday: o.byyearday, byweekno: o.byweekno,
    bymonthday: [...(o.bymonthday ?? []), ...(o.bynmonthday ?? [])],
    byweekday: [...(o.byweekday ?? []), ...(o.bynweekday ?? []).map(([day, n]) => new Weekday(day as number, n))],
    byhour: o.byhour, byminute: o.byminute, bysecond: o.bysecond,
  } as RuleOptions;
}

/** Frequencies whose periods are fixed lengths of floating time. */
const FIXED_STEP: Partial<Record<number, number>> = { [RRule.WEEKLY]: 7 * DAY, [RRule.DAILY]: DAY, [RRule.HOURLY]: HOUR };

/**
 * The rule started later: from a whole number of its periods after the first occurrence, at or before
 * `before`, with the parts rrule would take from the first occurrence pinned. Its occurrences from there are
 * the rule's, so an evaluation walks only the periods near `before`, never every period since the window
 * was created. COUNT counts from the first occurrence: no shortcut then.
 */
function startNear(options: RuleOptions, o: Parsed, first: number, before: number): { options: RuleOptions; dtstart: number } {
  if (o.count || before <= first) return { options, dtstart: first };
  const unit = FIXED_STEP[o.freq];
  if (unit !== undefined) {
    const step = unit * o.interval;
    return { options, dtstart: first + Math.floor((before - first) / step) * step };
  }
  const d = new Date(first);
  const b = new Date(before);
  const gone = o.freq === RRule.YEARLY ? b.getUTCFullYear() - d.getUTCFullYear() : (b.getUTCFullYear() - d.getUTCFullYear()) * 12 + b.getUTCMonth() - d.getUTCMonth();
  const periods = Math.floor(gone / o.interval) * o.interval;
  return periods <= 0 ? { options, dtstart: first } : { options: pinned(o), dtstart: periodStart(o, first, periods) };
}

/**
 * Whether an hourly rule's steps from DTSTART reach an hour of its BYHOUR: rrule steps to the next period
 * inside one loop, hour by hour (`INTERVAL` at a time), until it lands on one of them, for ever if it never
 * can (`INTERVAL=3;BYHOUR=1` from 00:00). Steps of `INTERVAL` hours reach exactly the hours of DTSTART's class
 * modulo gcd(INTERVAL, 24).
 */
function hoursReachable(o: Parsed): boolean {
  if (o.freq !== RRule.HOURLY || len(o.byhour) === 0) return true;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const g = gcd(o.interval, 24);
  const from = o.dtstart.getUTCHours() % g;
  return o.byhour.some((h) => h % g === from);
}

/**
 * The rule from `dtstart`, whose walk takes its work from `budget`: the setup and first period before it
 * starts (null: not even that fits, nothing is evaluated), then each further period. rrule walks period
 * after period until it has what it was asked for, up to the year 9999 for a rule that never occurs
 * (jkbrzt/rrule#481). Its loop reads `options.interval` once when it starts, then twice a period: to decide
 * whether to go on (it stops on 0) and to step to the next period (rrule 2.8.1, pinned). The deciding read
 * takes the next period's work and reads 0 once the budget cannot give it, so the walk ends there and what
 * was found by then stands; the stepping read always sees the real interval (an hourly step of 0 hours
 * would loop for ever). The unit tests pin this.
 */
function boundedRule(options: RuleOptions, dtstart: number, budget: WorkBudget): RRuleType | null {
  const rule = new RRule({ ...options, dtstart: new Date(dtstart) }, true);
  const { interval } = rule.options;
  if (!hoursReachable(rule.options)) return null;
  const cost = ruleCost(rule.options);
  if (!budget.take(cost.setup + cost.perPeriod)) return null;
  let reads = 0;
  let stopped = false;
  Object.defineProperty(rule.options, 'interval', {
    get: () => {
      reads += 1;
      if (reads > 1 && reads % 2 === 0 && !stopped) stopped = !budget.take(cost.perPeriod);
      return stopped ? 0 : interval;
    },
  });
  return rule;
}

/**
 * Why a recurring window's schedule is unusable, or null: `startsAt` must be the rule's first occurrence (an
 * RRULE whose DTSTART is not one of its occurrences has no defined meaning in RFC 5545), which also refuses
 * a rule with no occurrence at all; and the rule must be cheap enough to evaluate within one request's
 * work budget: a period of at most MAX_PERIOD_UNITS, and its next occurrences (every occurrence, with
 * COUNT) found within half of WORK_UNITS_PER_REQUEST.
 */
export function recurrenceProblem(s: Schedule & { recurrence: string }, upcoming: number): string | null {
  const first = toFloating(s.startsAt, s.timezone);
  const options = ruleOptions(s.recurrence, s.timezone);
  const parsed = parsedRule(options, first);
  const cost = ruleCost(parsed);
  if (cost.perPeriod > MAX_PERIOD_UNITS) {
    const period = PERIOD_NAME[parsed.freq] as string;
    return `makes up to ${cost.candidates.toLocaleString('en')} candidate times per ${period} (its FREQ and BY parts multiplied): evaluating one ${period} of it is more work than AlertFlow does for a tenth of a request (about ${(Math.floor(MAX_PERIOD_CANDIDATES / 1000) * 1000).toLocaleString('en')} candidates, fewer for an hourly rule, which remakes its times every hour): use a shorter FREQ or fewer BY values`;
  }
  const local = DateTime.fromMillis(s.startsAt, { zone: s.timezone });
  const problem = `startsAt (${local.toFormat('ccc yyyy-MM-dd HH:mm:ss')} in ${s.timezone}) must be the first occurrence of the rule, and it is not one`;
  // rrule steps an HOURLY rule hour by hour until an hour of BYHOUR comes up, forever if none can: refuse
  // before asking it (startsAt's hour must be one of them anyway).
  if (parsed.freq === RRule.HOURLY && len(parsed.byhour) > 0 && !parsed.byhour.includes(local.hour)) return problem;
  // startsAt lies in the rule's first period: if it is an occurrence, that period yields it.
  let found: number | null = null;
  boundedRule(options, first, new WorkBudget(cost.setup + 2 * cost.perPeriod))?.all((d) => {
    found = d.getTime();
    return false;
  });
  if (found !== first) return problem;
  // What a later evaluation walks: from a day and a duration before the instant asked about (an occurrence
  // may be under way), past it to the next occurrences. Every occurrence, with COUNT (counted from the first).
  // In half a budget, so that a request which checks a rule and then shows it stays near one.
  const probe = new WorkBudget(WORK_UNITS_PER_REQUEST / 2);
  if (parsed.count) boundedRule(options, first, probe)?.all(() => true);
  else occurrencesAfter(s, s.endsAt + 2 * DAY, upcoming, probe);
  if (probe.exhausted) return `needs more work to find its next ${parsed.count ? `${parsed.count} occurrences` : 'occurrences'} than AlertFlow does for half a request (it makes too many candidate times for how rarely it occurs): simplify it`;
  return null;
}

/**
 * Up to `limit` occurrences, earliest first, that have not ended at `at` (so the first one may be under
 * way), looking no further than about two years ahead. Assumes a schedule that passed validation. The walk
 * takes its work from `budget`: once it is spent the occurrences found so far are the answer.
 */
export function occurrencesAfter(s: Schedule, at: number, limit: number, budget: WorkBudget = new WorkBudget()): Occurrence[] {
  const duration = s.endsAt - s.startsAt;
  if (s.recurrence === null) return s.endsAt > at && limit > 0 ? [{ startsAt: s.startsAt, endsAt: s.endsAt }] : [];
  const zone = s.timezone;
  const first = toFloating(s.startsAt, zone);
  const options = ruleOptions(s.recurrence, zone);
  // Occurrences that may still be under way began after at − duration; a day of margin covers any offset change.
  const from = toFloating(at - duration, zone) - DAY;
  const until = toFloating(at, zone) + HORIZON;
  const found: Occurrence[] = [];
  const start = startNear(options, parsedRule(options, first), first, from);
  // Zone offsets are under a day: an occurrence ending a day before `at` on the wall clock has surely ended,
  // and is passed over without asking the zone (what costs most per occurrence).
  const surelyEnded = toFloating(at, zone) - DAY - duration;
  boundedRule(start.options, start.dtstart, budget)?.all((d) => {
    const floating = d.getTime();
    if (floating > until) return false;
    if (floating < surelyEnded) return true;
    if (!budget.take(UNITS.exact)) return false;
    const begins = floating === first ? s.startsAt : fromFloating(floating, zone);
    if (begins + duration > at) found.push({ startsAt: begins, endsAt: begins + duration });
    // One more than asked: a wall-clock time in a spring-forward gap can map past the next occurrence.
    return found.length <= limit;
  });
  const unique = [...new Map(found.map((o) => [o.startsAt, o])).values()];
  return unique.sort((a, b) => a.startsAt - b.startsAt).slice(0, limit);
}

/** The occurrence under way at `at`, if any. */
export function activeOccurrence(s: Schedule, at: number, budget?: WorkBudget): Occurrence | null {
  const [next] = occurrencesAfter(s, at, 1, budget);
  return next && next.startsAt <= at ? next : null;
}

export const isActive = (s: Schedule, at: number, budget?: WorkBudget): boolean => activeOccurrence(s, at, budget) !== null;
