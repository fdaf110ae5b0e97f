import { describe, expect, it } from 'vitest';
import { bodyOf, formOf, newLayer } from './schedule-form';

describe('schedule form', () => {
  const stored = {
    id: 'sch_1', name: 'Primary', description: null, timezone: 'Europe/Berlin', handoffNotices: true, overrides: [], createdAt: '', updatedAt: '',
    layers: [{ name: 'Days', startsAt: '2026-11-20T08:00:00.000Z', rotation: 'custom' as const, shiftHours: 12, users: ['a', 'b'], restrictions: [{ days: ['mon' as const], from: '09:00', to: '17:00' }] }],
  };

  it('shows a layer start in the schedule\'s zone and gives it back as the same instant', () => {
    const f = formOf(stored);
    expect(f.layers[0]!.start).toBe('2026-11-20T09:00');
    expect(bodyOf(f)).toEqual({
      name: 'Primary', description: null, timezone: 'Europe/Berlin', handoffNotices: true,
      layers: [{ name: 'Days', rotation: 'custom', startsAt: '2026-11-20T08:00:00.000Z', shiftHours: 12, users: ['a', 'b'], restrictions: [{ days: ['mon'], from: '09:00', to: '17:00' }] }],
    });
  });

  it('passes what it cannot read on as typed, for the server to refuse in its own words', () => {
    const f = { name: 'X', description: '', timezone: 'UTC', handoffNotices: false, layers: [{ ...newLayer(1, 'UTC', Date.parse('2026-11-21T10:00:00Z')), start: '', rotation: 'custom' as const, shiftHours: '1.5' }] };
    const layer = bodyOf(f).layers[0]!;
    expect(layer.startsAt).toBe('');
    expect(layer.shiftHours).toBe('1.5');
    expect(newLayer(1, 'UTC', Date.parse('2026-11-21T10:00:00Z')).start).toBe('2026-11-21T09:00');
  });
});
