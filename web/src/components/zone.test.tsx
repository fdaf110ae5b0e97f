import { describe, expect, it } from 'vitest';
import { fromLocalInput, instantOf, localInput, wallOf } from './zone';

const at = (s: string) => Date.parse(s);

describe('wall-clock time in a zone', () => {
  it('reads and writes a datetime-local value in the zone, not the browser\'s', () => {
    expect(localInput(at('2026-11-21T10:00:00Z'), 'Europe/Berlin')).toBe('2026-11-21T11:00');
    expect(fromLocalInput('2026-11-21T11:00', 'Europe/Berlin')).toBe(at('2026-11-21T10:00:00Z'));
    expect(fromLocalInput('2026-07-01T09:00', 'America/New_York')).toBe(at('2026-07-01T13:00:00Z'));
    expect(fromLocalInput('not a date', 'UTC')).toBeNaN();
  });

  it('keeps local midnight across a DST change', () => {
    // Berlin goes from +02:00 to +01:00 on 2026-10-25.
    expect(instantOf(at('2026-10-25T00:00:00Z'), 'Europe/Berlin')).toBe(at('2026-10-24T22:00:00Z'));
    expect(instantOf(at('2026-10-26T00:00:00Z'), 'Europe/Berlin')).toBe(at('2026-10-25T23:00:00Z'));
  });

  it('gives the earlier of a repeated hour and the end of a skipped one', () => {
    expect(instantOf(at('2026-10-25T02:30:00Z'), 'Europe/Berlin')).toBe(at('2026-10-25T00:30:00Z'));
    // 2026-03-29 02:30 never happens in Berlin: the clock jumps from 02:00 to 03:00.
    expect(wallOf(instantOf(at('2026-03-29T02:30:00Z'), 'Europe/Berlin'), 'Europe/Berlin')).toBe(at('2026-03-29T03:30:00Z'));
  });
});
