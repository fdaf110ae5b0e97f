import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Calendar } from './calendar';
import { calendarDays, dayOf } from './calendar-fns';

afterEach(cleanup);

const at = (s: string) => Date.parse(s);
const ZONE = 'America/New_York';
const shifts = [
  { userId: 'ada', startsAt: '2026-11-23T05:00:00.000Z', endsAt: '2026-11-24T05:00:00.000Z', source: 'layer' as const, layerName: 'Days' },
  { userId: 'bob', startsAt: '2026-11-24T05:00:00.000Z', endsAt: '2026-11-24T17:00:00.000Z', source: 'override' as const },
];

function setup(onPick?: (p: { start: number; end: number }) => void) {
  const days = calendarDays('week', dayOf(at('2026-11-24T12:00:00Z'), ZONE), ZONE);
  render(<Calendar view="week" days={days} shifts={shifts} zone={ZONE} today={days[1]!.wall}
    nameOf={(id) => ({ ada: 'Ada', bob: 'Bob' })[id] ?? id} toneOf={() => 0} onPick={onPick} />);
}

describe('Calendar', () => {
  it('shows each day\'s shifts in the zone, the name as text, and nobody where there is none', () => {
    setup();
    expect(screen.getByText(/00:00–24:00 Ada/)).toBeTruthy();
    expect(screen.getByText(/00:00–12:00 Bob/)).toBeTruthy();
    expect(screen.getAllByText('Nobody')).toHaveLength(5);
    expect(screen.queryAllByRole('button')).toHaveLength(0);
  });

  it('a day and a shift are buttons that give the range an override would cover', () => {
    const onPick = vi.fn();
    setup(onPick);
    fireEvent.click(screen.getByRole('button', { name: /add an override on Tuesday,? (November 24|24 November)/ }));
    expect(onPick).toHaveBeenLastCalledWith({ start: at('2026-11-24T05:00:00Z'), end: at('2026-11-25T05:00:00Z') });
    fireEvent.click(screen.getByRole('button', { name: /Bob \(override\)/ }));
    expect(onPick).toHaveBeenLastCalledWith({ start: at('2026-11-24T05:00:00Z'), end: at('2026-11-24T17:00:00Z') });
  });
});
