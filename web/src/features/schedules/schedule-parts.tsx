import type { Schedule, ScheduleLayer } from '../../api/types';
import { dateTimeZoned, formatIn, timeIn } from '../../components/zone';
import { ZonedTime } from '../../components/zoned-time';
import { restrictionThisWeek } from './calendar-fns';

const DAY_NAMES: Record<string, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };

function rotationText(l: ScheduleLayer): string {
  return l.rotation === 'custom' ? `every ${l.shiftHours} hours` : l.rotation;
}

/** A schedule's layers, their start and restrictions in its zone, and on `mine` (the viewer's clock) where that differs. */
export function Layers({ s, nameOf, mine }: { s: Schedule; nameOf: (id: string) => string; mine: string }) {
  if (s.layers.length === 0) return <p className="muted">No layers: nobody is on call except by override. Edit the schedule to add one.</p>;
  return (
    <ol className="layers">
      {s.layers.map((l, i) => (
        <li key={`${l.name}${i}`}>
          <strong>{l.name}</strong>: {rotationText(l)} from <ZonedTime at={l.startsAt} zone={s.timezone} mine={mine} />
          <div>In turn: {l.users.map(nameOf).join(' → ')}</div>
          {l.restrictions.length > 0 && (
            <div>Only: {l.restrictions.map((r) => `${r.days.map((d) => DAY_NAMES[d]).join(', ')} ${r.from}–${r.to}`).join('; ')} ({s.timezone})</div>
          )}
          {l.restrictions.length > 0 && mine !== s.timezone && (
            <div className="muted">
              This week on your clock ({mine}): {l.restrictions.flatMap((r) => restrictionThisWeek(r, s.timezone, Date.now()))
                .map((w) => `${formatIn(w.start, mine, { weekday: 'short' })} ${timeIn(w.start, mine)}–${timeIn(w.end, mine)}`).join(', ')}
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}

interface OverridesProps {
  overrides: Schedule['overrides'];
  /** The zone the page shows: the schedule's or the viewer's. */
  zone: string;
  nameOf: (id: string) => string;
  /** The index of the override being removed, if any. */
  removing: number | null;
  /** Absent for a reader who may not change the schedule. */
  onRemove?: (index: number) => void;
  mine?: string;
}

/** A schedule's overrides, each span with its zone named (and on the viewer's clock where that differs). */
export function Overrides({ overrides, zone, nameOf, removing, onRemove, mine }: OverridesProps) {
  if (overrides.length === 0) return <p className="muted">No overrides.</p>;
  return (
    <ul className="overrides">
      {overrides.map((o, i) => (
        <li key={`${o.userId}${o.startsAt}${i}`}>
          <span>{nameOf(o.userId)}: <ZonedTime at={o.startsAt} until={o.endsAt} zone={zone} mine={mine} /></span>
          {onRemove && (
            <button type="button" className="secondary small" disabled={removing !== null} onClick={() => onRemove(i)}
              aria-label={`Remove the override of ${nameOf(o.userId)} from ${dateTimeZoned(o.startsAt, zone)}`}>Remove</button>
          )}
        </li>
      ))}
    </ul>
  );
}
