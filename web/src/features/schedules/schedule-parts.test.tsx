import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Schedule } from '../../api/types';
import { dateTimeIn } from '../../components/zone';
import { Layers, Overrides } from './schedule-parts';

afterEach(cleanup);

const NY = 'America/New_York';
const BERLIN = 'Europe/Berlin';
const override = { userId: 'bob', startsAt: '2026-11-24T05:00:00.000Z', endsAt: '2026-11-24T17:00:00.000Z' };
const nameOf = (id: string) => ({ ada: 'Ada', bob: 'Bob' })[id] ?? id;
const span = (zone: string) => `${dateTimeIn(override.startsAt, zone)} – ${dateTimeIn(override.endsAt, zone)}`;

describe('a schedule\'s times where the viewer\'s zone is another', () => {
  it('an override names the zone it is written in and gives the viewer\'s clock beside it', () => {
    render(<Overrides overrides={[override]} zone={NY} nameOf={nameOf} removing={null} onRemove={() => {}} mine={BERLIN} />);
    expect(screen.getByRole('listitem').textContent).toContain(`Bob: ${span(NY)} ${NY} (${span(BERLIN)} yours)`);
    expect(screen.getByRole('button', { name: `Remove the override of Bob from ${dateTimeIn(override.startsAt, NY)} ${NY}` })).toBeTruthy();
  });

  it('on the viewer\'s own clock the zone is still named, with no second clock', () => {
    render(<Overrides overrides={[override]} zone={BERLIN} nameOf={nameOf} removing={null} mine={BERLIN} />);
    expect(screen.getByRole('listitem').textContent).toBe(`Bob: ${span(BERLIN)} ${BERLIN}`);
  });

  it('a layer\'s first shift is written in the schedule\'s zone, named, and on the viewer\'s clock', () => {
    const s: Schedule = {
      id: 'sch_1', name: 'Primary', description: null, timezone: NY, handoffNotices: false, overrides: [], createdAt: '', updatedAt: '',
      layers: [{ name: 'Days', rotation: 'daily', shiftHours: null, startsAt: override.startsAt, users: ['ada', 'bob'], restrictions: [] }],
    };
    render(<Layers s={s} nameOf={nameOf} mine={BERLIN} />);
    const at = override.startsAt;
    expect(screen.getByRole('listitem').textContent).toContain(`Days: daily from ${dateTimeIn(at, NY)} ${NY} (${dateTimeIn(at, BERLIN)} yours)`);
  });
});
