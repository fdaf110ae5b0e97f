import { describe, expect, it } from 'vitest';
import { bodyOf, newWindow, recurrenceInWords, repeatOf, ruleOf, windowFromAlert } from './window-form';

describe('suppression window form', () => {
  it('writes the common rules and reads them back; anything else stays a raw rule', () => {
    expect(ruleOf({ repeat: 'weekly', interval: '1', weekdays: ['MO', 'WE'], raw: '' })).toBe('FREQ=WEEKLY;BYDAY=MO,WE');
    expect(ruleOf({ repeat: 'daily', interval: '2', weekdays: [], raw: '' })).toBe('FREQ=DAILY;INTERVAL=2');
    expect(ruleOf({ repeat: 'none', interval: '1', weekdays: [], raw: 'x' })).toBeNull();
    expect(repeatOf('FREQ=WEEKLY;BYDAY=SA,MO')).toEqual({ repeat: 'weekly', interval: '1', weekdays: ['MO', 'SA'], raw: 'FREQ=WEEKLY;BYDAY=SA,MO' });
    expect(repeatOf('FREQ=MONTHLY;INTERVAL=3').repeat).toBe('monthly');
    expect(repeatOf('FREQ=MONTHLY;BYDAY=1SU').repeat).toBe('raw');
    expect(repeatOf('FREQ=WEEKLY;BYDAY=1MO').repeat).toBe('raw');
  });

  it('gives the body in the window\'s zone, with typed lists and booleans for matchers', () => {
    const f = {
      ...newWindow('Europe/Berlin', Date.parse('2026-11-21T10:20:00Z')),
      name: 'Patch night', repeat: 'weekly' as const, weekdays: ['SA' as const],
      matchers: [{ field: 'labels.env', op: 'in' as const, value: 'prod, staging' }, { field: 'labels.team', op: 'exists' as const, value: 'false' }],
    };
    expect(bodyOf(f)).toEqual({
      name: 'Patch night', description: null, startsAt: '2026-11-21T11:00:00.000Z', endsAt: '2026-11-21T12:00:00.000Z', timezone: 'Europe/Berlin',
      recurrence: 'FREQ=WEEKLY;BYDAY=SA',
      matchers: [{ field: 'labels.env', op: 'in', value: ['prod', 'staging'] }, { field: 'labels.team', op: 'exists', value: false }],
      clientId: null,
    });
  });

  it('prefills a window from an alert: its labels as equals, its client, from this minute for an hour', () => {
    const now = Date.parse('2026-11-21T10:20:30Z');
    const f = windowFromAlert({ title: 'Disk full', labels: { env: 'prod', host: 'db-1' }, fingerprint: 'fp', clientId: 'cli_1' }, 'Europe/Berlin', now);
    expect(bodyOf(f)).toMatchObject({
      name: 'Like: Disk full', startsAt: '2026-11-21T10:20:00.000Z', endsAt: '2026-11-21T11:20:00.000Z', timezone: 'Europe/Berlin', recurrence: null,
      matchers: [{ field: 'labels.env', op: 'eq', value: 'prod' }, { field: 'labels.host', op: 'eq', value: 'db-1' }],
      clientId: 'cli_1',
    });
    const bare = windowFromAlert({ title: 'x'.repeat(300), labels: {}, fingerprint: 'fp-9', clientId: null }, 'UTC', now);
    expect(bare.matchers).toEqual([{ field: 'fingerprint', op: 'eq', value: 'fp-9' }]);
    expect(bare.name).toHaveLength(200);
    expect(bare.clientId).toBe('');
  });

  it('says a rule in words, and leaves one it cannot say as it is', () => {
    expect(recurrenceInWords(null)).toBe('Once');
    expect(recurrenceInWords('FREQ=WEEKLY;BYDAY=SA,MO')).toBe('Every week on Monday, Saturday');
    expect(recurrenceInWords('FREQ=DAILY;INTERVAL=2')).toBe('Every 2 days');
    expect(recurrenceInWords('FREQ=MONTHLY')).toBe('Every month');
    expect(recurrenceInWords('FREQ=MONTHLY;BYDAY=1SU')).toBeNull();
  });
});
