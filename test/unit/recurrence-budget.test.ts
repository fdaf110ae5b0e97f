import fc from 'fast-check';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WORK_UNITS_PER_REQUEST, WorkBudget } from '../../src/lib/work-budget.ts';
import { occurrencesAfter } from '../../src/modules/suppression/recurrence-fns.ts';
import { checkWindow } from '../../src/modules/suppression/suppression-fns.ts';
import { onCallAt, shiftsBetween, type OnCallSchedule } from '../../src/modules/schedules/schedules-fns.ts';
import { DAYS } from '../../src/modules/schedules/rotation-fns.ts';
import { datesMade } from '../support/date-meter.ts';

/**
 * Issue 25 row 1: no recurrence a tenant writes makes one request do unbounded work. Work is counted, not
 * timed: rrule makes a Date per candidate time it considers, so the Dates made measure its real work
 * whatever the machine's load, independently of the budget's own accounting. A candidate is 3 units of
 * the budget, so an evaluation makes at most about a third of WORK_UNITS_PER_REQUEST of them; checking a
 * window evaluates its rule twice. (The row's rule made 26 million before this: 12–14 s.)
 */
const DATES_PER_EVALUATION = WORK_UNITS_PER_REQUEST / 2;
const DATES_PER_CHECK = 2 * DATES_PER_EVALUATION;

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const all = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => i + from);
const BOMB = `FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=${all(0, 23)};BYMINUTE=${all(0, 59)};BYSECOND=${all(0, 59)}`;

describe('recurrence work budget', () => {
  it('the row 1 rule is refused for the candidates it makes per period, before any is made', async () => {
    const at = Math.floor((T0 - 60_000) / 1000) * 1000;
    const { value, dates } = await datesMade(() => checkWindow({ startsAt: at, endsAt: at + 1000, timezone: 'UTC', recurrence: BOMB, matchers: [] }));
    assert.ok(!value.ok);
    assert.equal(value.errors[0]?.path, '/recurrence');
    assert.match(value.errors[0]?.message ?? '', /makes up to 31,622,400 candidate times per year/);
    assert.ok(dates < 100, `${dates} dates`);
  });

  it('a window of that rule stored before the check costs one budget to evaluate, and answers', async () => {
    const w = { startsAt: T0, endsAt: T0 + 1000, timezone: 'UTC', recurrence: BOMB };
    const budget = new WorkBudget();
    const { value, dates } = await datesMade(() => occurrencesAfter(w, T0 + 30_000, 5, budget));
    assert.deepEqual(value, [], 'not evaluated: its first period alone is over the budget');
    assert.ok(budget.exhausted && budget.spent <= budget.units);
    assert.ok(dates <= DATES_PER_EVALUATION, `${dates} dates`);
  });

  it('an hourly rule whose steps never reach its BYHOUR is not evaluated (rrule would step hour by hour for ever)', async () => {
    // From 00:00, steps of 3 hours reach 0, 3, 6, …: never 1. Saving refuses it (startsAt's hour is not in BYHOUR).
    const w = { startsAt: T0 - (T0 % DAY), endsAt: T0 - (T0 % DAY) + 1000, timezone: 'UTC', recurrence: 'FREQ=HOURLY;INTERVAL=3;BYHOUR=1' };
    assert.deepEqual(occurrencesAfter(w, T0, 5), []);
    assert.ok(!checkWindow({ ...w, matchers: [] }).ok);
  });

  // Every FREQ, each BY part absent, one value, or every value it can take.
  const part = (name: string, values: Array<number | string>) => fc.oneof(
    fc.constant(''),
    fc.constantFrom(...values).map((v) => `;${name}=${v}`),
    fc.constant(`;${name}=${values.join(',')}`),
    fc.subarray(values, { minLength: 1 }).map((vs) => `;${name}=${vs.join(',')}`),
  );
  const weekdays = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
  const rule = fc.tuple(
    fc.constantFrom('YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY'),
    part('BYMONTH', all(1, 12)), part('BYWEEKNO', [...all(1, 53), ...all(1, 53).map((n) => -n)]),
    part('BYYEARDAY', [...all(1, 366), ...all(1, 366).map((n) => -n)]), part('BYMONTHDAY', [...all(1, 31), ...all(1, 31).map((n) => -n)]),
    part('BYDAY', [...weekdays, ...weekdays.flatMap((d) => [`1${d}`, `-1${d}`, `53${d}`])]),
    part('BYHOUR', all(0, 23)), part('BYMINUTE', all(0, 59)), part('BYSECOND', all(0, 59)),
    part('BYSETPOS', [...all(1, 366), ...all(1, 366).map((n) => -n)]),
    fc.oneof(fc.constant(''), fc.constantFrom(';COUNT=999', ';INTERVAL=999', ';INTERVAL=7', ';UNTIL=20991231T235959Z')),
  ).map(([freq, ...parts]) => `FREQ=${freq}${parts.join('')}`);
  const start = fc.integer({ min: 0, max: 400 * 24 * 60 }).map((m) => T0 + m * 60_000);
  let accepted = 0;

  it('property: any rule, with every BY part up to its maximum, is refused (400) or evaluated within the budget, wherever it is asked about', { timeout: 120_000 }, async () => {
    await fc.assert(fc.asyncProperty(rule, start, fc.constantFrom('UTC', 'Europe/Berlin', 'Pacific/Apia'), fc.integer({ min: 1, max: 800 }), async (recurrence, seed, timezone, laterDays) => {
      // Most generated rules do not occur at an arbitrary instant: start the window at the rule's first
      // occurrence after it (found within a budget too), so that the check accepts the rule when it can.
      const firstAfter = await datesMade(() => occurrencesAfter({ startsAt: seed, endsAt: seed + 1000, timezone, recurrence }, seed, 1, new WorkBudget())[0]);
      assert.ok(firstAfter.dates <= DATES_PER_EVALUATION, `${recurrence} made ${firstAfter.dates} dates`);
      const startsAt = firstAfter.value?.startsAt ?? seed;
      const checked = await datesMade(() => checkWindow({ startsAt, endsAt: startsAt + 3_600_000, timezone, recurrence, matchers: [] }));
      assert.ok(checked.dates <= DATES_PER_CHECK, `checking ${recurrence} made ${checked.dates} dates`);
      if (!checked.value.ok) {
        assert.equal(checked.value.errors[0]?.path, '/recurrence');
        return;
      }
      accepted += 1;
      const w = checked.value.window;
      for (const at of [startsAt - DAY, startsAt + 1, startsAt + laterDays * DAY]) {
        const budget = new WorkBudget();
        const listed = await datesMade(() => occurrencesAfter(w, at, 5, budget));
        assert.ok(listed.dates <= DATES_PER_EVALUATION, `${recurrence} at +${laterDays}d made ${listed.dates} dates`);
        assert.ok(budget.spent <= budget.units);
      }
    }), { numRuns: 40 });
    assert.ok(accepted >= 5, `only ${accepted} generated rules were accepted: the property says little about evaluation`);
  });
});

describe('schedule work budget', () => {
  const wide = Array.from({ length: 12 }, (_, i) => ({ days: [...DAYS], from: `${String(2 * i).padStart(2, '0')}:00`, to: `${String((2 * i + 2) % 24).padStart(2, '0')}:00` }));
  // Ten layers of hourly shifts of the same person, restricted to twelve windows that tile every day: one
  // unbroken stretch that following its bounds would walk for a year of hours, restriction by restriction.
  const hostile: OnCallSchedule = {
    timezone: 'Europe/Berlin',
    layers: Array.from({ length: 10 }, (_, i) => ({ name: `l${i}`, startsAt: T0 - 400 * DAY, rotation: 'hourly', shiftHours: null, users: Array(50).fill('usr_a'), restrictions: wide })),
    overrides: Array.from({ length: 200 }, (_, i) => ({ userId: 'usr_a', startsAt: T0 + i * 11 * 3_600_000 + 1000, endsAt: T0 + i * 11 * 3_600_000 + 2000 })),
  };

  it('who is on call is answered; the bounds of their stretch are null once following them spends the budget', () => {
    const budget = new WorkBudget();
    const oc = onCallAt(hostile, T0, budget);
    assert.equal(oc.userId, 'usr_a');
    assert.deepEqual([oc.startsAt, oc.endsAt], [null, null]);
    assert.ok(budget.exhausted && budget.spent <= budget.units);
  });

  it('expanding a range that does not fit in the budget stops with WorkLimitReached instead of going on', () => {
    const budget = new WorkBudget();
    assert.throws(() => shiftsBetween(hostile, T0, T0 + 93 * DAY, budget), { name: 'WorkLimitReached' });
    assert.ok(budget.spent <= budget.units);
  });
});
