import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConditionSubject } from '../../src/lib/conditions.ts';
import { activeOccurrence, isActive, occurrencesAfter, parseRecurrence, type Schedule } from '../../src/modules/suppression/recurrence-fns.ts';
import { checkWindow, inForceAt, matchingWindow, settle, type SuppressionWindow, type WindowInput } from '../../src/modules/suppression/suppression-fns.ts';

const t = (s: string): number => Date.parse(s);
const iso = (ms: number): string => new Date(ms).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const starts = (s: Schedule, at: string, n = 5): string[] => occurrencesAfter(s, t(at), n).map((o) => iso(o.startsAt));

describe('one-off window', () => {
  const s: Schedule = { startsAt: t('2026-11-21T10:00:00.000Z'), endsAt: t('2026-11-21T12:00:00.000Z'), timezone: 'UTC', recurrence: null };
  const cases: Array<[string, boolean]> = [
    ['2026-11-21T09:59:59.999Z', false],
    ['2026-11-21T10:00:00.000Z', true],
    ['2026-11-21T11:59:59.999Z', true],
    ['2026-11-21T12:00:00.000Z', false],
    ['2027-01-01T00:00:00.000Z', false],
  ];
  for (const [at, active] of cases) {
    it(`at ${at}: ${active ? 'active' : 'inactive'}`, () => assert.equal(isActive(s, t(at)), active));
  }
  it('lists its one occurrence until it has ended', () => {
    assert.deepEqual(occurrencesAfter(s, t('2026-11-20T00:00:00.000Z'), 5), [{ startsAt: s.startsAt, endsAt: s.endsAt }]);
    assert.deepEqual(occurrencesAfter(s, t('2026-11-21T11:00:00.000Z'), 5), [{ startsAt: s.startsAt, endsAt: s.endsAt }]);
    assert.deepEqual(occurrencesAfter(s, t('2026-11-21T12:00:00.000Z'), 5), []);
  });
});

describe('recurring window in Europe/Berlin across DST changes', () => {
  // Every Saturday 22:00–24:00 Berlin time; the first occurrence is Saturday 17 October 2026 (CEST, UTC+2).
  const weekly: Schedule = {
    startsAt: t('2026-10-17T20:00:00.000Z'), endsAt: t('2026-10-17T22:00:00.000Z'), timezone: 'Europe/Berlin', recurrence: 'FREQ=WEEKLY;BYDAY=SA',
  };

  it('keeps 22:00 local time across the change to CET on 2026-10-25', () => {
    assert.deepEqual(starts(weekly, '2026-10-01T00:00:00.000Z'), [
      '2026-10-17T20:00:00.000Z', '2026-10-24T20:00:00.000Z', // CEST: 22:00 is 20:00 UTC
      '2026-10-31T21:00:00.000Z', '2026-11-07T21:00:00.000Z', '2026-11-14T21:00:00.000Z', // CET: 22:00 is 21:00 UTC
    ]);
  });

  it('keeps 22:00 local time across the change to CEST on 2027-03-28', () => {
    assert.deepEqual(starts(weekly, '2027-03-20T00:00:00.000Z', 3), ['2027-03-20T21:00:00.000Z', '2027-03-27T21:00:00.000Z', '2027-04-03T20:00:00.000Z']);
  });

  const cases: Array<[string, boolean]> = [
    ['2026-10-17T19:59:59.999Z', false],
    ['2026-10-17T20:00:00.000Z', true],
    ['2026-10-24T21:59:59.999Z', true],
    ['2026-10-24T22:00:00.000Z', false],
    ['2026-10-31T20:30:00.000Z', false], // 21:30 CET: not yet
    ['2026-10-31T21:30:00.000Z', true],
    ['2026-10-31T22:59:59.999Z', true],
    ['2026-10-31T23:00:00.000Z', false],
    ['2027-03-27T21:00:00.000Z', true],
    ['2027-04-03T20:00:00.000Z', true], // 22:00 CEST
    ['2027-04-03T21:59:59.999Z', true],
    ['2027-04-03T22:00:00.000Z', false],
    ['2027-04-04T20:00:00.000Z', false], // a Sunday
    ['2026-10-10T20:30:00.000Z', false], // before the first occurrence
  ];
  for (const [at, active] of cases) {
    it(`at ${at}: ${active ? 'active' : 'inactive'}`, () => assert.equal(isActive(weekly, t(at)), active));
  }

  it('lists the occurrence under way first, then the next ones, five at most', () => {
    const list = occurrencesAfter(weekly, t('2026-10-31T22:00:00.000Z'), 5);
    assert.equal(list.length, 5);
    assert.deepEqual(list[0], { startsAt: t('2026-10-31T21:00:00.000Z'), endsAt: t('2026-10-31T23:00:00.000Z') });
    assert.deepEqual(activeOccurrence(weekly, t('2026-10-31T22:00:00.000Z')), list[0]);
    for (const o of list) assert.equal(o.endsAt - o.startsAt, 2 * HOUR, 'each occurrence lasts endsAt − startsAt');
  });

  it('a daily time skipped or repeated by a DST change: 02:30 becomes 03:30 in the gap, the first 02:30 in the overlap', () => {
    const daily: Schedule = { startsAt: t('2027-03-26T01:30:00.000Z'), endsAt: t('2027-03-26T02:00:00.000Z'), timezone: 'Europe/Berlin', recurrence: 'FREQ=DAILY' };
    assert.deepEqual(starts(daily, '2027-03-26T00:00:00.000Z', 4), [
      '2027-03-26T01:30:00.000Z', '2027-03-27T01:30:00.000Z', '2027-03-28T01:30:00.000Z' /* 03:30 CEST */, '2027-03-29T00:30:00.000Z',
    ]);
    const autumn: Schedule = { startsAt: t('2026-10-24T00:30:00.000Z'), endsAt: t('2026-10-24T01:00:00.000Z'), timezone: 'Europe/Berlin', recurrence: 'FREQ=DAILY' };
    assert.deepEqual(starts(autumn, '2026-10-24T00:00:00.000Z', 3), ['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z' /* 02:30 CEST */, '2026-10-26T01:30:00.000Z']);
  });
});

describe('recurrence evaluation long after the first occurrence', () => {
  it('keeps the phase of INTERVAL for daily, weekly and hourly rules', () => {
    const first = t('2020-01-01T10:00:00.000Z');
    const at = t('2026-11-21T12:00:00.000Z');
    for (const [rule, step] of [['FREQ=DAILY;INTERVAL=3', 3 * DAY], ['FREQ=WEEKLY;INTERVAL=2', 14 * DAY], ['FREQ=HOURLY;INTERVAL=5', 5 * HOUR]] as const) {
      const s: Schedule = { startsAt: first, endsAt: first + 60_000, timezone: 'UTC', recurrence: rule };
      const expected = first + Math.ceil((at - 60_000 - first) / step) * step;
      assert.deepEqual(starts(s, iso(at), 2), [iso(expected), iso(expected + step)], rule);
    }
  });

  it('honours COUNT and UNTIL (a UTC UNTIL, and a local one)', () => {
    const base = { startsAt: t('2026-11-21T10:00:00.000Z'), endsAt: t('2026-11-21T11:00:00.000Z'), timezone: 'Europe/Berlin' };
    assert.deepEqual(starts({ ...base, recurrence: 'FREQ=DAILY;COUNT=3' }, '2026-11-01T00:00:00.000Z'),
      ['2026-11-21T10:00:00.000Z', '2026-11-22T10:00:00.000Z', '2026-11-23T10:00:00.000Z']);
    assert.equal(isActive({ ...base, recurrence: 'FREQ=DAILY;COUNT=3' }, t('2026-11-24T10:30:00.000Z')), false);
    assert.deepEqual(starts({ ...base, recurrence: 'FREQ=DAILY;UNTIL=20261122T100000Z' }, '2026-11-01T00:00:00.000Z'),
      ['2026-11-21T10:00:00.000Z', '2026-11-22T10:00:00.000Z']);
    // 11:00 Berlin is 10:00 UTC: a local UNTIL of 10:59 stops before the second day's occurrence.
    assert.deepEqual(starts({ ...base, recurrence: 'FREQ=DAILY;UNTIL=20261122T105900' }, '2026-11-01T00:00:00.000Z'), ['2026-11-21T10:00:00.000Z']);
  });
});

describe('checkWindow', () => {
  const base: WindowInput = { startsAt: t('2026-10-17T20:00:00.000Z'), endsAt: t('2026-10-17T22:00:00.000Z'), timezone: 'Europe/Berlin', recurrence: null, matchers: [] };
  const refused = (input: Partial<WindowInput>): string[] => {
    const r = checkWindow({ ...base, ...input });
    assert.ok(!r.ok, `expected ${JSON.stringify(input)} to be refused`);
    return r.errors.map((e) => e.path);
  };

  it('accepts a valid window and stores the canonical rule', () => {
    const r = checkWindow({ ...base, recurrence: 'rrule:freq=weekly;byday=sa', matchers: [{ field: 'labels.env', op: 'exists' }] });
    assert.ok(r.ok);
    assert.equal(r.window.recurrence, 'FREQ=WEEKLY;BYDAY=SA');
    assert.deepEqual(r.window.matchers, [{ field: 'labels.env', op: 'exists', value: true }]);
  });

  it('refuses endsAt not after startsAt, a zone that is not IANA, and bad matchers', () => {
    assert.deepEqual(refused({ endsAt: base.startsAt }), ['/endsAt']);
    assert.deepEqual(refused({ endsAt: base.startsAt - 1 }), ['/endsAt']);
    for (const timezone of ['Mars/Olympus', '+02:00', '', 'Europe/Berlin ']) assert.deepEqual(refused({ timezone }), ['/timezone'], timezone);
    assert.deepEqual(refused({ matchers: [{ field: 'labels.env', op: 'eq', value: 'x' }, { field: 'labels.env', op: 'matches', value: '(' }] }), ['/matchers/1/value']);
  });

  it('refuses malformed rules with a message', () => {
    for (const rule of ['', 'FREQ=MINUTELY', 'FREQ=SECONDLY', 'BYDAY=MO', 'FREQ=WEEKLY;BYDAY=XX', 'FREQ=DAILY;COUNT=3;UNTIL=20270101T000000Z',
      'FREQ=DAILY;FREQ=WEEKLY', 'FREQ=DAILY;INTERVAL=0', 'FREQ=DAILY;COUNT=abc', 'garbage', 'FREQ=DAILY;TZID=Europe/Berlin',
      'DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY', 'FREQ=DAILY;BYHOUR=24', 'FREQ=DAILY;BYEASTER=0']) {
      assert.equal(parseRecurrence(rule).ok, false, rule);
      assert.deepEqual(refused({ recurrence: rule }), ['/recurrence'], rule);
    }
  });

  it('refuses a startsAt that is not the first occurrence of its rule', () => {
    assert.deepEqual(refused({ recurrence: 'FREQ=WEEKLY;BYDAY=SU' }), ['/recurrence']);
    assert.deepEqual(refused({ recurrence: 'FREQ=DAILY;BYHOUR=9' }), ['/recurrence']);
    assert.deepEqual(refused({ recurrence: 'FREQ=WEEKLY;UNTIL=20261017T195959Z' }), ['/recurrence'], 'UNTIL before the first occurrence');
  });

  it('refuses rules that never occur, and returns: no walk to the year 9999, no endless loop', { timeout: 10_000 }, () => {
    for (const rule of ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', 'FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30', 'FREQ=HOURLY;INTERVAL=2;BYHOUR=1',
      'FREQ=YEARLY;BYMONTH=5;BYSETPOS=3;BYMONTHDAY=3', 'FREQ=WEEKLY;BYMONTH=2;BYMONTHDAY=30']) {
      assert.deepEqual(refused({ recurrence: rule }), ['/recurrence'], rule);
    }
  });
});

describe('matchingWindow and settle', () => {
  const alert: ConditionSubject = {
    title: 'Disk full', severity: 'high', status: 'firing', source: null, description: null, fingerprint: 'f',
    clientId: 'cli_a', integrationId: 'int_1', labels: { env: 'prod', host: 'db1' }, annotations: {},
  };
  const window = (id: string, extra: Partial<SuppressionWindow> = {}): SuppressionWindow => ({
    id, startsAt: t('2026-11-21T10:00:00.000Z'), endsAt: t('2026-11-21T12:00:00.000Z'), timezone: 'UTC', recurrence: null, matchers: [], clientId: null, ...extra,
  });
  const during = t('2026-11-21T11:00:00.000Z');
  const after = t('2026-11-21T12:00:00.000Z');

  const cases: Array<[string, SuppressionWindow[], number, string | null]> = [
    ['no windows', [], during, null],
    ['an empty matcher list holds every alert', [window('w1')], during, 'w1'],
    ['not in force', [window('w1')], after, null],
    ['all matchers must hold', [window('w1', { matchers: [{ field: 'labels.env', op: 'eq', value: 'prod' }, { field: 'labels.host', op: 'eq', value: 'db2' }] })], during, null],
    ['matchers hold', [window('w1', { matchers: [{ field: 'labels.env', op: 'eq', value: 'prod' }, { field: 'labels.host', op: 'matches', value: '^db' }] })], during, 'w1'],
    ['another client\'s window', [window('w1', { clientId: 'cli_b' })], during, null],
    ['the alert\'s client\'s window', [window('w1', { clientId: 'cli_a' })], during, 'w1'],
    ['the first that holds, in the given order', [window('w1', { matchers: [{ field: 'labels.env', op: 'eq', value: 'dev' }] }), window('w2'), window('w3')], during, 'w2'],
  ];
  for (const [name, windows, at, expected] of cases) {
    it(name, () => assert.equal(matchingWindow(windows, alert, inForceAt(at)), expected));
  }

  it('a client-scoped window never holds an alert without a client', () => {
    assert.equal(matchingWindow([window('w1', { clientId: 'cli_a' })], { ...alert, clientId: null }, inForceAt(during)), null);
  });

  it('settle keeps the current window while it holds the alert, else moves it, else releases it', () => {
    const later = window('w2', { endsAt: t('2026-11-21T14:00:00.000Z') });
    assert.equal(settle([window('w1'), later], alert, 'w2', inForceAt(during)), 'w2', 'stays with its window rather than the first');
    assert.equal(settle([window('w1'), later], alert, 'w1', inForceAt(after)), 'w2');
    assert.equal(settle([later], alert, 'gone', inForceAt(during)), 'w2', 'a deleted window');
    assert.equal(settle([window('w1')], alert, 'w1', inForceAt(after)), null);
    assert.equal(settle([window('w1', { matchers: [{ field: 'labels.env', op: 'eq', value: 'dev' }] })], alert, 'w1', inForceAt(during)), null, 'changed so that it no longer matches');
  });
});
