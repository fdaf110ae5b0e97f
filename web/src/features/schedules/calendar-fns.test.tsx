import { describe, expect, it } from 'vitest';
import { calendarDays, dayOf, restrictionThisWeek, shiftAnchor, shiftsOn } from './calendar-fns';

const at = (s: string) => Date.parse(s);

describe('calendar days', () => {
  it('a week runs Monday to Sunday in the zone, with a 25-hour day when clocks go back', () => {
    const anchor = dayOf(at('2026-10-22T12:00:00Z'), 'Europe/Berlin');
    const days = calendarDays('week', anchor, 'Europe/Berlin');
    expect(days).toHaveLength(7);
    expect(new Date(days[0]!.wall).toISOString()).toBe('2026-10-19T00:00:00.000Z');
    expect(days[0]!.start).toBe(at('2026-10-18T22:00:00Z'));
    expect(days[6]!.end - days[6]!.start).toBe(25 * 3_600_000);
  });

  it('a month covers whole weeks and marks the days outside it', () => {
    const days = calendarDays('month', at('2026-11-21T00:00:00Z'), 'UTC');
    expect(days).toHaveLength(42);
    expect(new Date(days[0]!.wall).toISOString().slice(0, 10)).toBe('2026-10-26');
    expect(days.filter((d) => !d.outside)).toHaveLength(30);
    expect(new Date(shiftAnchor('month', at('2026-12-31T00:00:00Z'), 1)).toISOString().slice(0, 10)).toBe('2027-01-01');
  });

  it('a shift shows on every day it touches', () => {
    const days = calendarDays('week', at('2026-11-23T00:00:00Z'), 'UTC');
    const s = { userId: 'u', startsAt: '2026-11-23T18:00:00Z', endsAt: '2026-11-24T06:00:00Z', source: 'layer' as const };
    expect(days.map((d) => shiftsOn([s], d).length)).toEqual([1, 1, 0, 0, 0, 0, 0]);
  });
});

describe('restrictions on another clock', () => {
  it('gives this week\'s windows as instants, overnight ones ending the next day', () => {
    const r = { days: ['mon', 'fri'], from: '22:00', to: '06:00' };
    expect(restrictionThisWeek(r, 'America/New_York', at('2026-11-25T12:00:00Z'))).toEqual([
      { start: at('2026-11-24T03:00:00Z'), end: at('2026-11-24T11:00:00Z') },
      { start: at('2026-11-28T03:00:00Z'), end: at('2026-11-28T11:00:00Z') },
    ]);
  });
});
