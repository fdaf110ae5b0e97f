import fc from 'fast-check';
import { DateTime } from 'luxon';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAYS, type Day, type Layer, type Restriction, type Rotation } from '../../src/modules/schedules/rotation-fns.ts';
import {
  handoffMessage, handoffsBetween, onCallAt, RUN_HORIZON_MS, scheduleErrors, shiftsBetween, timeline, userMentions, type OnCallSchedule, type Override,
} from '../../src/modules/schedules/schedules-fns.ts';

const t = (s: string): number => Date.parse(s);
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BERLIN = 'Europe/Berlin';

const layer = (l: Omit<Partial<Layer>, 'startsAt'> & { rotation: Rotation; startsAt: string; users: string[] }): Layer =>
  ({ name: 'primary', shiftHours: null, restrictions: [], ...l, startsAt: t(l.startsAt) });
const sched = (layers: Layer[], overrides: Array<[string, string, string]> = [], timezone = BERLIN): OnCallSchedule =>
  ({ timezone, layers, overrides: overrides.map(([userId, a, b]) => ({ userId, startsAt: t(a), endsAt: t(b) })) });
/** [user, start, end, hours] of the final shifts intersecting [from, to). */
const shifts = (s: OnCallSchedule, from: string, to: string) =>
  shiftsBetween(s, t(from), t(to)).map((x) => [x.userId, iso(x.startsAt), iso(x.endsAt), (x.endsAt - x.startsAt) / HOUR]);
/** onCallAt with `at` as the injected clock's now: [user, startsAt, endsAt]. */
const at = (s: OnCallSchedule, when: string) => {
  const r = onCallAt(s, t(when));
  return [r.userId, iso(r.startsAt), iso(r.endsAt)];
};

describe('rotations across the Europe/Berlin DST changes', () => {
  it('daily handoffs keep 09:00 local time: the shift over the 2026-10-25 fall-back night lasts 25 h', () => {
    const s = sched([layer({ rotation: 'daily', startsAt: '2026-10-23T07:00:00.000Z', users: ['a', 'b', 'c'] })]);
    assert.deepEqual(shifts(s, '2026-10-23T07:00:00.000Z', '2026-10-27T09:00:00.000Z'), [
      ['a', '2026-10-23T07:00:00.000Z', '2026-10-24T07:00:00.000Z', 24],
      ['b', '2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', 25],
      ['c', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z', 24],
      ['a', '2026-10-26T08:00:00.000Z', '2026-10-27T08:00:00.000Z', 24],
      ['b', '2026-10-27T08:00:00.000Z', '2026-10-28T08:00:00.000Z', 24], // under way at `to`: shown whole
    ]);
  });

  it('daily handoffs keep 09:00 local time: the shift over the 2027-03-28 spring-forward night lasts 23 h', () => {
    const s = sched([layer({ rotation: 'daily', startsAt: '2027-03-26T08:00:00.000Z', users: ['a', 'b', 'c'] })]);
    assert.deepEqual(shifts(s, '2027-03-26T08:00:00.000Z', '2027-03-29T07:00:00.000Z'), [
      ['a', '2027-03-26T08:00:00.000Z', '2027-03-27T08:00:00.000Z', 24],
      ['b', '2027-03-27T08:00:00.000Z', '2027-03-28T07:00:00.000Z', 23],
      ['c', '2027-03-28T07:00:00.000Z', '2027-03-29T07:00:00.000Z', 24],
    ]);
  });

  it('weekly handoffs keep Monday 09:00: 169 h over the fall-back, 167 h over the spring-forward', () => {
    const autumn = sched([layer({ rotation: 'weekly', startsAt: '2026-10-19T07:00:00.000Z', users: ['a', 'b'] })]);
    assert.deepEqual(shifts(autumn, '2026-10-19T07:00:00.000Z', '2026-11-02T08:00:00.000Z'), [
      ['a', '2026-10-19T07:00:00.000Z', '2026-10-26T08:00:00.000Z', 169],
      ['b', '2026-10-26T08:00:00.000Z', '2026-11-02T08:00:00.000Z', 168],
    ]);
    const spring = sched([layer({ rotation: 'weekly', startsAt: '2027-03-22T08:00:00.000Z', users: ['a', 'b'] })]);
    assert.deepEqual(shifts(spring, '2027-03-22T08:00:00.000Z', '2027-04-05T07:00:00.000Z'), [
      ['a', '2027-03-22T08:00:00.000Z', '2027-03-29T07:00:00.000Z', 167],
      ['b', '2027-03-29T07:00:00.000Z', '2027-04-05T07:00:00.000Z', 168],
    ]);
  });

  it('hourly and custom shifts are fixed lengths in absolute time (the repeated 02:00–03:00 is two shifts)', () => {
    const hourly = sched([layer({ rotation: 'hourly', startsAt: '2026-10-25T00:00:00.000Z', users: ['a', 'b', 'c'] })]);
    assert.deepEqual(shifts(hourly, '2026-10-25T00:00:00.000Z', '2026-10-25T04:00:00.000Z'), [
      ['a', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', 1], // 02:00–03:00 CEST
      ['b', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z', 1], // 02:00–03:00 CET
      ['c', '2026-10-25T02:00:00.000Z', '2026-10-25T03:00:00.000Z', 1],
      ['a', '2026-10-25T03:00:00.000Z', '2026-10-25T04:00:00.000Z', 1],
    ]);
    const custom = sched([layer({ rotation: 'custom', shiftHours: 12, startsAt: '2027-03-27T23:00:00.000Z', users: ['a', 'b'] })]);
    assert.deepEqual(shifts(custom, '2027-03-27T23:00:00.000Z', '2027-03-29T11:00:00.000Z'), [
      ['a', '2027-03-27T23:00:00.000Z', '2027-03-28T11:00:00.000Z', 12], // 00:00 CET → 13:00 CEST
      ['b', '2027-03-28T11:00:00.000Z', '2027-03-28T23:00:00.000Z', 12],
      ['a', '2027-03-28T23:00:00.000Z', '2027-03-29T11:00:00.000Z', 12],
    ]);
  });

  it('a daily handoff at 02:30 moves to 03:30 on the spring-forward day and takes the first 02:30 on the fall-back day', () => {
    const spring = sched([layer({ rotation: 'daily', startsAt: '2027-03-26T01:30:00.000Z', users: ['a', 'b'] })]);
    assert.deepEqual(shifts(spring, '2027-03-26T01:30:00.000Z', '2027-03-29T01:00:00.000Z'), [
      ['a', '2027-03-26T01:30:00.000Z', '2027-03-27T01:30:00.000Z', 24],
      ['b', '2027-03-27T01:30:00.000Z', '2027-03-28T01:30:00.000Z', 24], // to 03:30 CEST
      ['a', '2027-03-28T01:30:00.000Z', '2027-03-29T00:30:00.000Z', 23], // 02:30 CEST
      ['b', '2027-03-29T00:30:00.000Z', '2027-03-30T00:30:00.000Z', 24],
    ]);
    const autumn = sched([layer({ rotation: 'daily', startsAt: '2026-10-24T00:30:00.000Z', users: ['a', 'b'] })]);
    assert.deepEqual(shifts(autumn, '2026-10-24T00:30:00.000Z', '2026-10-26T02:00:00.000Z'), [
      ['a', '2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', 24], // to the first 02:30 (CEST)
      ['b', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z', 25],
      ['a', '2026-10-26T01:30:00.000Z', '2026-10-27T01:30:00.000Z', 24],
    ]);
  });

  it('keeps the phase years after startsAt (no drift from DST changes in between)', () => {
    const s = sched([layer({ rotation: 'daily', startsAt: '2020-01-06T08:00:00.000Z', users: ['a', 'b', 'c'] })]);
    // 2026-11-23 is 2513 days after 2020-01-06: 2513 % 3 = 2, handoff 09:00 CET.
    assert.deepEqual(at(s, '2026-11-23T12:00:00.000Z'), ['c', '2026-11-23T08:00:00.000Z', '2026-11-24T08:00:00.000Z']);
    // 08:30 CEST on 1 July: the shift that began on 30 June at 09:00 CEST.
    assert.deepEqual(at(s, '2026-07-01T06:30:00.000Z'), [['a', 'b', 'c'][(Date.UTC(2026, 5, 30) - Date.UTC(2020, 0, 6)) / DAY % 3], '2026-06-30T07:00:00.000Z', '2026-07-01T07:00:00.000Z']);
  });
});

describe('onCallAt: the first shift, nobody, and unbounded runs', () => {
  const s = sched([layer({ rotation: 'daily', startsAt: '2026-10-23T07:00:00.000Z', users: ['a', 'b'] })]);
  const cases: Array<[string, Array<string | null>]> = [
    ['2026-10-01T00:00:00.000Z', [null, null, '2026-10-23T07:00:00.000Z']], // before startsAt: nobody, since ever
    ['2026-10-23T06:59:59.999Z', [null, null, '2026-10-23T07:00:00.000Z']],
    ['2026-10-23T07:00:00.000Z', ['a', '2026-10-23T07:00:00.000Z', '2026-10-24T07:00:00.000Z']], // the first user first
    ['2026-10-24T06:59:59.999Z', ['a', '2026-10-23T07:00:00.000Z', '2026-10-24T07:00:00.000Z']],
    ['2026-10-24T07:00:00.000Z', ['b', '2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z']],
    ['2026-10-25T07:59:59.999Z', ['b', '2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z']],
    ['2026-10-25T08:00:00.000Z', ['a', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z']],
  ];
  for (const [when, expected] of cases) it(`at ${when}`, () => assert.deepEqual(at(s, when), expected));

  it('the only user of a layer is on call for ever: endsAt null; since startsAt, or null beyond 366 days', () => {
    const one = sched([layer({ rotation: 'weekly', startsAt: '2026-10-19T07:00:00.000Z', users: ['a'] })]);
    assert.deepEqual(at(one, '2026-11-21T10:00:00.000Z'), ['a', '2026-10-19T07:00:00.000Z', null]);
    assert.deepEqual(at(one, '2027-10-20T10:00:00.000Z'), ['a', null, null]);
    assert.deepEqual(at(sched([layer({ rotation: 'daily', startsAt: '2026-10-19T07:00:00.000Z', users: ['a', 'a'] })]), '2026-11-21T10:00:00.000Z'),
      ['a', '2026-10-19T07:00:00.000Z', null], 'the same user twice in a row is one run');
    assert.equal(RUN_HORIZON_MS, 366 * DAY);
  });

  it('an empty schedule has nobody, unbounded; with only overrides, nobody around them', () => {
    assert.deepEqual(at(sched([]), '2026-11-21T10:00:00.000Z'), [null, null, null]);
    const only = sched([], [['x', '2026-11-21T10:00:00.000Z', '2026-11-21T11:00:00.000Z']]);
    assert.deepEqual(at(only, '2026-11-21T09:00:00.000Z'), [null, null, '2026-11-21T10:00:00.000Z']);
    assert.deepEqual(at(only, '2026-11-21T10:30:00.000Z'), ['x', '2026-11-21T10:00:00.000Z', '2026-11-21T11:00:00.000Z']);
    assert.deepEqual(at(only, '2026-11-21T11:00:00.000Z'), [null, '2026-11-21T11:00:00.000Z', null]);
  });
});

describe('restrictions (in the schedule\'s zone)', () => {
  const weekdays: Restriction = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' };
  const office = sched([layer({ rotation: 'daily', startsAt: '2026-10-19T07:00:00.000Z', users: ['a', 'b'], restrictions: [weekdays] })]);

  const cases: Array<[string, Array<string | null>]> = [
    ['2026-10-23T10:00:00.000Z', ['a', '2026-10-23T07:00:00.000Z', '2026-10-23T15:00:00.000Z']], // Friday 12:00 CEST
    ['2026-10-23T15:00:00.000Z', [null, '2026-10-23T15:00:00.000Z', '2026-10-26T08:00:00.000Z']], // Friday 17:00 to Monday 09:00 CET
    ['2026-10-24T10:00:00.000Z', [null, '2026-10-23T15:00:00.000Z', '2026-10-26T08:00:00.000Z']], // Saturday
    ['2026-10-26T08:30:00.000Z', ['b', '2026-10-26T08:00:00.000Z', '2026-10-26T16:00:00.000Z']], // the rotation went on underneath
    ['2026-10-19T06:00:00.000Z', [null, null, '2026-10-19T07:00:00.000Z']],
  ];
  for (const [when, expected] of cases) it(`office hours, at ${when}`, () => assert.deepEqual(at(office, when), expected));

  it('an overnight window (to ≤ from) belongs to the day it starts on', () => {
    const nights = sched([layer({ rotation: 'weekly', startsAt: '2026-10-19T07:00:00.000Z', users: ['n'], restrictions: [{ days: ['fri'], from: '22:00', to: '06:00' }] })]);
    assert.deepEqual(at(nights, '2026-10-24T02:00:00.000Z'), ['n', '2026-10-23T20:00:00.000Z', '2026-10-24T04:00:00.000Z']); // Sat 04:00 CEST
    assert.deepEqual(at(nights, '2026-10-24T05:00:00.000Z')[0], null); // Sat 07:00
    assert.deepEqual(at(nights, '2026-10-23T19:00:00.000Z')[0], null); // Fri 21:00
    assert.deepEqual(at(nights, '2026-10-25T02:00:00.000Z')[0], null, 'Saturday night is not Friday\'s');
  });

  it('`to` = `from` is 24 hours; a whole Sunday over the fall-back lasts 25 h, over the spring-forward 23 h', () => {
    const sundays = sched([layer({ rotation: 'weekly', startsAt: '2026-10-01T00:00:00.000Z', users: ['s'], restrictions: [{ days: ['sun'], from: '00:00', to: '00:00' }] })]);
    assert.deepEqual(shifts(sundays, '2026-10-24T00:00:00.000Z', '2026-10-27T00:00:00.000Z'), [['s', '2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z', 25]]);
    assert.deepEqual(shifts(sundays, '2027-03-27T00:00:00.000Z', '2027-03-30T00:00:00.000Z'), [['s', '2027-03-27T23:00:00.000Z', '2027-03-28T22:00:00.000Z', 23]]);
  });

  it('overlapping restriction windows join; a user whose shift ends inside a window hands over there', () => {
    const s = sched([layer({
      rotation: 'daily', startsAt: '2026-11-02T12:00:00.000Z', users: ['a', 'b'], // handoff 13:00 CET
      restrictions: [{ days: ['mon'], from: '09:00', to: '14:00' }, { days: ['mon'], from: '11:00', to: '18:00' }],
    })]);
    assert.deepEqual(shifts(s, '2026-11-02T00:00:00.000Z', '2026-11-03T00:00:00.000Z'), [['a', '2026-11-02T12:00:00.000Z', '2026-11-02T17:00:00.000Z', 5]]);
    assert.deepEqual(shifts(s, '2026-11-09T00:00:00.000Z', '2026-11-10T00:00:00.000Z'), [
      ['a', '2026-11-09T08:00:00.000Z', '2026-11-09T12:00:00.000Z', 4], // 7 days on: a again until 13:00 CET
      ['b', '2026-11-09T12:00:00.000Z', '2026-11-09T17:00:00.000Z', 5],
    ]);
  });
});

describe('overrides and layers merged', () => {
  const base = layer({ rotation: 'daily', startsAt: '2026-10-19T07:00:00.000Z', users: ['a', 'b'] });

  it('an override beats the layers; a later override beats an earlier one where they overlap', () => {
    const s = sched([base], [['x', '2026-10-20T10:00:00.000Z', '2026-10-20T12:00:00.000Z'], ['y', '2026-10-20T11:00:00.000Z', '2026-10-20T13:00:00.000Z']]);
    assert.deepEqual(at(s, '2026-10-20T10:30:00.000Z'), ['x', '2026-10-20T10:00:00.000Z', '2026-10-20T11:00:00.000Z']);
    assert.deepEqual(at(s, '2026-10-20T11:30:00.000Z'), ['y', '2026-10-20T11:00:00.000Z', '2026-10-20T13:00:00.000Z']);
    assert.deepEqual(at(s, '2026-10-20T13:00:00.000Z'), ['b', '2026-10-20T13:00:00.000Z', '2026-10-21T07:00:00.000Z']);
    const list = shiftsBetween(s, t('2026-10-20T00:00:00.000Z'), t('2026-10-21T00:00:00.000Z'));
    assert.deepEqual(list.map((x) => [x.userId, iso(x.startsAt), iso(x.endsAt), x.source, x.layer]), [
      ['a', '2026-10-19T07:00:00.000Z', '2026-10-20T07:00:00.000Z', 'layer', 0], // began before `from`: its real start
      ['b', '2026-10-20T07:00:00.000Z', '2026-10-20T10:00:00.000Z', 'layer', 0],
      ['x', '2026-10-20T10:00:00.000Z', '2026-10-20T11:00:00.000Z', 'override', null],
      ['y', '2026-10-20T11:00:00.000Z', '2026-10-20T13:00:00.000Z', 'override', null],
      ['b', '2026-10-20T13:00:00.000Z', '2026-10-21T07:00:00.000Z', 'layer', 0],
    ]);
  });

  it('current-oncall bounds span sources for one user; shifts keep the sources apart', () => {
    const s = sched([base], [['a', '2026-10-20T05:00:00.000Z', '2026-10-20T09:00:00.000Z']]);
    assert.deepEqual(at(s, '2026-10-20T06:00:00.000Z'), ['a', '2026-10-19T07:00:00.000Z', '2026-10-20T09:00:00.000Z']);
    assert.deepEqual(shiftsBetween(s, t('2026-10-20T00:00:00.000Z'), t('2026-10-20T12:00:00.000Z')).map((x) => [x.userId, iso(x.startsAt), iso(x.endsAt), x.source]), [
      ['a', '2026-10-19T07:00:00.000Z', '2026-10-20T05:00:00.000Z', 'layer'],
      ['a', '2026-10-20T05:00:00.000Z', '2026-10-20T09:00:00.000Z', 'override'],
      ['b', '2026-10-20T09:00:00.000Z', '2026-10-21T07:00:00.000Z', 'layer'],
    ]);
  });

  it('two layers: the later one wins where it has somebody, the earlier shows through elsewhere', () => {
    const weekend = layer({ name: 'weekend', rotation: 'weekly', startsAt: '2026-10-19T07:00:00.000Z', users: ['w'], restrictions: [{ days: ['sat', 'sun'], from: '00:00', to: '00:00' }] });
    const s = sched([base, weekend]);
    assert.deepEqual(at(s, '2026-10-23T10:00:00.000Z'), ['a', '2026-10-23T07:00:00.000Z', '2026-10-23T22:00:00.000Z']); // Friday, until Saturday 00:00 CEST
    assert.deepEqual(at(s, '2026-10-24T10:00:00.000Z'), ['w', '2026-10-23T22:00:00.000Z', '2026-10-25T23:00:00.000Z']); // to Monday 00:00 CET
    assert.deepEqual(at(s, '2026-10-25T23:30:00.000Z'), ['a', '2026-10-25T23:00:00.000Z', '2026-10-26T08:00:00.000Z']); // Monday 00:30: Sunday's shift shows through
    assert.deepEqual(at(s, '2026-10-26T10:00:00.000Z'), ['b', '2026-10-26T08:00:00.000Z', '2026-10-27T08:00:00.000Z']);
    const later = sched([base, { ...weekend, startsAt: t('2026-10-25T00:00:00.000Z') }]);
    assert.deepEqual(at(later, '2026-10-24T10:00:00.000Z'), ['b', '2026-10-24T07:00:00.000Z', '2026-10-25T00:00:00.000Z'], 'before the later layer starts the earlier shows through');
    const list = shiftsBetween(s, t('2026-10-24T00:00:00.000Z'), t('2026-10-26T00:00:00.000Z')).map((x) => [x.userId, x.source, x.layer]);
    assert.deepEqual(list, [['w', 'layer', 1], ['a', 'layer', 0]]);
  });
});

describe('validation helpers', () => {
  it('scheduleErrors: custom needs shiftHours, others refuse it; IANA zones only; overrides end after they start', () => {
    const l = (rotation: string, shiftHours?: number | null) => ({ rotation, shiftHours, startsAt: '2026-11-02T09:00:00.000Z' });
    assert.deepEqual(scheduleErrors({ layers: [l('custom'), l('custom', null), l('daily', 8), l('custom', 8), l('hourly', null), l('weekly')] }).map((e) => e.path),
      ['/layers/0/shiftHours', '/layers/1/shiftHours', '/layers/2/shiftHours']);
    for (const timezone of ['Mars/Olympus', '+02:00', '', 'Europe/Berlin ', '../etc/passwd']) assert.deepEqual(scheduleErrors({ timezone }).map((e) => e.path), ['/timezone'], timezone);
    for (const timezone of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) assert.deepEqual(scheduleErrors({ timezone }), [], timezone);
    assert.deepEqual(scheduleErrors({ overrides: [
      { startsAt: '2026-11-02T09:00:00Z', endsAt: '2026-11-02T10:00:00Z' },
      { startsAt: '2026-11-02T09:00:00Z', endsAt: '2026-11-02T09:00:00Z' },
      { startsAt: '2026-11-02T09:00:00Z', endsAt: '2026-11-02T08:00:00Z' },
    ] }).map((e) => e.path), ['/overrides/1/endsAt', '/overrides/2/endsAt']);
  });

  it('userMentions names the JSON pointer of every user id', () => {
    assert.deepEqual(userMentions({ layers: [{ users: ['a', 'b'] }, { users: ['c'] }], overrides: [{ userId: 'd' }] }), [
      { userId: 'a', path: '/layers/0/users/0' }, { userId: 'b', path: '/layers/0/users/1' }, { userId: 'c', path: '/layers/1/users/0' }, { userId: 'd', path: '/overrides/0/userId' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties, against a naive reference that reads every wall clock through luxon directly.

const ZONES = [BERLIN, 'America/New_York', 'Australia/Lord_Howe', 'UTC', 'Asia/Kolkata', 'America/Santiago'];
const BASE = t('2026-09-01T00:00:00.000Z');
const instant = (maxDays: number) => fc.integer({ min: 0, max: maxDays * 24 * 60 }).map((m) => BASE + m * 60_000);

/** The instant `zone` shows `w`, by luxon: a skipped reading moves forward, a repeated one is its first instant. */
const luxonInstant = (w: DateTime): number => Math.min(...w.getPossibleOffsets().map((d) => d.toMillis()));

function referenceLayerUser(l: Layer, zone: string, at: number): string | null {
  if (at < l.startsAt) return null;
  let k: number;
  if (l.rotation === 'hourly' || l.rotation === 'custom') {
    k = Math.floor((at - l.startsAt) / ((l.rotation === 'hourly' ? 1 : (l.shiftHours as number)) * HOUR));
  } else {
    const step = l.rotation === 'daily' ? 1 : 7;
    const floating = DateTime.fromMillis(l.startsAt, { zone }).setZone('utc', { keepLocalTime: true });
    const handoff = (n: number): number => (n === 0 ? l.startsAt : luxonInstant(floating.plus({ days: n * step }).setZone(zone, { keepLocalTime: true })));
    k = Math.floor((at - l.startsAt) / (step * DAY));
    while (k > 0 && handoff(k) > at) k -= 1;
    while (handoff(k + 1) <= at) k += 1;
  }
  if (l.restrictions.length > 0) {
    const local = DateTime.fromMillis(at, { zone }).setZone('utc', { keepLocalTime: true }).startOf('day');
    const open = [local.minus({ days: 1 }), local].some((day) => l.restrictions.some((r) => {
      if (!r.days.includes(DAYS[day.weekday - 1] as Day)) return false;
      const [fh, fm] = r.from.split(':').map(Number) as [number, number];
      const [th, tm] = r.to.split(':').map(Number) as [number, number];
      const start = luxonInstant(day.set({ hour: fh, minute: fm }).setZone(zone, { keepLocalTime: true }));
      const endDay = th * 60 + tm > fh * 60 + fm ? day : day.plus({ days: 1 });
      const end = luxonInstant(endDay.set({ hour: th, minute: tm }).setZone(zone, { keepLocalTime: true }));
      return start <= at && at < end;
    }));
    if (!open) return null;
  }
  return l.users[k % l.users.length] as string;
}

function referenceAt(s: OnCallSchedule, at: number): string | null {
  const o = s.overrides.findLast((x) => x.startsAt <= at && at < x.endsAt);
  if (o) return o.userId;
  for (let i = s.layers.length - 1; i >= 0; i--) {
    const u = referenceLayerUser(s.layers[i] as Layer, s.timezone, at);
    if (u !== null) return u;
  }
  return null;
}

const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45)).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const restriction: fc.Arbitrary<Restriction> = fc.record({ days: fc.subarray([...DAYS], { minLength: 1 }), from: hhmm, to: hhmm });
const layerArb: fc.Arbitrary<Layer> = fc.record({
  rotation: fc.constantFrom<Rotation>('hourly', 'daily', 'weekly', 'custom'),
  shiftHours: fc.integer({ min: 1, max: 30 }),
  startsAt: instant(200),
  users: fc.array(fc.constantFrom('u1', 'u2', 'u3', 'u4'), { minLength: 1, maxLength: 4 }),
  restrictions: fc.oneof(fc.constant<Restriction[]>([]), fc.array(restriction, { minLength: 1, maxLength: 2 })),
}).map((l) => ({ name: 'generated', ...l, shiftHours: l.rotation === 'custom' ? l.shiftHours : null }));
const overrideArb: fc.Arbitrary<Override> = fc.record({ userId: fc.constantFrom('o1', 'u1'), startsAt: instant(260), hours: fc.integer({ min: 1, max: 72 }) })
  .map((o) => ({ userId: o.userId, startsAt: o.startsAt, endsAt: o.startsAt + o.hours * HOUR }));
const scheduleArb: fc.Arbitrary<OnCallSchedule> = fc.record({
  timezone: fc.constantFrom(...ZONES),
  layers: fc.array(layerArb, { maxLength: 3 }),
  overrides: fc.array(overrideArb, { maxLength: 3 }),
});
/** A range of up to 12 days starting within the generated period. */
const rangeArb = fc.tuple(instant(260), fc.integer({ min: 1, max: 12 * 24 * 4 })).map(([from, quarters]) => [from, from + quarters * 15 * 60_000] as const);

describe('properties', () => {
  it('the merged timeline tiles the range without gaps or overlaps, and every piece has the reference user throughout', () => {
    fc.assert(fc.property(scheduleArb, rangeArb, (s, [from, to]) => {
      const pieces = timeline(s, from, to);
      assert.equal(pieces[0]?.start, from);
      assert.equal(pieces[pieces.length - 1]?.end, to);
      pieces.forEach((p, i) => {
        assert.ok(p.end > p.start, 'no empty piece');
        const next = pieces[i + 1];
        if (next) {
          assert.equal(next.start, p.end, 'no gap, no overlap');
          assert.ok(next.userId !== p.userId || next.source !== p.source || next.layer !== p.layer, 'adjacent pieces differ');
        }
        assert.equal(referenceAt(s, p.start), p.userId, `at the start of ${JSON.stringify(p)}`);
        assert.equal(referenceAt(s, p.end - 1), p.userId, `at the end of ${JSON.stringify(p)}`);
      });
    }), { numRuns: 150 });
  });

  it('at any instant exactly one user or nobody is on call, and onCallAt bounds the run of that user exactly', () => {
    fc.assert(fc.property(scheduleArb, instant(270), (s, when) => {
      const r = onCallAt(s, when);
      assert.equal(r.userId, referenceAt(s, when));
      if (r.userId === null && s.layers.some((l) => l.restrictions.length === 0 && l.startsAt <= when)) assert.fail('an unrestricted layer under way has somebody on call');
      if (r.startsAt !== null) {
        assert.ok(r.startsAt <= when);
        assert.equal(referenceAt(s, r.startsAt), r.userId);
        assert.notEqual(referenceAt(s, r.startsAt - 1), r.userId, 'the run starts there');
      }
      if (r.endsAt !== null) {
        assert.ok(r.endsAt > when);
        assert.equal(referenceAt(s, r.endsAt - 1), r.userId);
        assert.notEqual(referenceAt(s, r.endsAt), r.userId, 'the run ends there');
      }
      for (const p of timeline(s, r.startsAt ?? when, r.endsAt ?? when + 1)) assert.equal(p.userId, r.userId, 'the same user throughout');
    }), { numRuns: 150 });
  });

  it('shifts are ordered, disjoint, intersect the range and cover exactly its on-call time', () => {
    fc.assert(fc.property(scheduleArb, rangeArb, (s, [from, to]) => {
      const list = shiftsBetween(s, from, to);
      list.forEach((sh, i) => {
        assert.ok(sh.endsAt > sh.startsAt && sh.endsAt > from && sh.startsAt < to, 'intersects the range');
        const next = list[i + 1];
        if (next) assert.ok(next.startsAt >= sh.endsAt, 'ordered, no overlap');
        assert.equal(referenceAt(s, sh.startsAt), sh.userId);
        assert.equal(referenceAt(s, sh.endsAt - 1), sh.userId);
      });
      const covered = list.map((sh) => [Math.max(sh.startsAt, from), Math.min(sh.endsAt, to)]);
      const onCall = timeline(s, from, to).filter((p) => p.userId !== null).map((p) => [p.start, p.end]);
      assert.deepEqual(covered, onCall);
    }), { numRuns: 100 });
  });

  it('the result does not depend on how the range is cut', () => {
    fc.assert(fc.property(scheduleArb, rangeArb, fc.double({ min: 0, max: 1, noNaN: true }), (s, [from, to], f) => {
      const mid = from + Math.floor((to - from) * f);
      const whole = timeline(s, from, to);
      const joined = [...timeline(s, from, mid), ...timeline(s, mid, to)].reduce<typeof whole>((acc, p) => {
        const last = acc[acc.length - 1];
        if (last && last.userId === p.userId && last.source === p.source && last.layer === p.layer && last.end === p.start) last.end = p.end;
        else acc.push({ ...p });
        return acc;
      }, []);
      assert.deepEqual(joined, whole);
    }), { numRuns: 100 });
  });
});

describe('handoffsBetween: which shift starts need a notice at a given time', () => {
  // ann then bob, daily at 09:00 Berlin (08:00 UTC in November).
  const daily = sched([layer({ rotation: 'daily', startsAt: '2026-11-20T08:00:00Z', users: ['ann', 'bob'] })]);
  const WINDOW = 10 * 60_000;
  const due = (s: OnCallSchedule, when: string) => handoffsBetween(s, t(when), WINDOW).map((h) => [h.userId, iso(h.startsAt), iso(h.endsAt)]);

  it('a shift that started within the window, with the bounds of the stretch; none before it starts or once the window has passed', () => {
    assert.deepEqual(due(daily, '2026-11-21T08:00:00Z'), [['bob', '2026-11-21T08:00:00.000Z', '2026-11-22T08:00:00.000Z']]);
    assert.deepEqual(due(daily, '2026-11-21T08:09:59Z'), [['bob', '2026-11-21T08:00:00.000Z', '2026-11-22T08:00:00.000Z']]);
    assert.deepEqual(due(daily, '2026-11-21T07:59:59Z'), []);
    assert.deepEqual(due(daily, '2026-11-21T08:10:00Z'), [], 'the look before had it');
    assert.deepEqual(due(daily, '2026-11-21T12:00:00Z'), []);
  });

  it('overrides count: the override\'s person is told, and so is the one whose shift resumes after it', () => {
    const s = sched(daily.layers, [['cat', '2026-11-21T12:00:00Z', '2026-11-21T14:00:00Z']]);
    assert.deepEqual(due(s, '2026-11-21T12:05:00Z'), [['cat', '2026-11-21T12:00:00.000Z', '2026-11-21T14:00:00.000Z']]);
    assert.deepEqual(due(s, '2026-11-21T14:01:00Z'), [['bob', '2026-11-21T14:00:00.000Z', '2026-11-22T08:00:00.000Z']]);
  });

  it('the same person going on (an override of their own shift) is no handoff; nor is a move to nobody', () => {
    const own = sched(daily.layers, [['bob', '2026-11-21T12:00:00Z', '2026-11-21T14:00:00Z']]);
    assert.deepEqual(due(own, '2026-11-21T12:05:00Z'), []);
    const office = sched([layer({ rotation: 'daily', startsAt: '2026-11-20T08:00:00Z', users: ['ann'], restrictions: [{ days: [...DAYS], from: '09:00', to: '17:00' }] })]);
    assert.deepEqual(due(office, '2026-11-21T16:05:00Z'), [], 'the end of a restricted window hands over to nobody');
    assert.deepEqual(due(office, '2026-11-21T08:05:00Z').map((h) => h[0]), ['ann'], 'ann comes on at 09:00 Berlin');
  });

  it('the notice says the schedule and the stretch in the schedule\'s time zone', () => {
    const [h] = handoffsBetween(daily, t('2026-11-21T08:00:00Z'), WINDOW);
    assert.deepEqual(handoffMessage('Primary', BERLIN, h!), {
      subject: 'You are on call for Primary',
      text: 'You are on call for Primary from 21 Nov 2026, 09:00 to 22 Nov 2026, 09:00 (Europe/Berlin).',
    });
    assert.match(handoffMessage('Solo', 'UTC', { userId: 'ann', startsAt: 0, endsAt: null }).text, /from 1 Jan 1970, 00:00 until further notice \(UTC\)\.$/);
  });
});
