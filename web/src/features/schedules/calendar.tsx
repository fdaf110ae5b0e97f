import { formatIn, timeIn } from '../../components/zone';
import { shiftsOn, type CalendarDay, type CalendarShift, type CalendarView } from './calendar-fns';

export interface RangePick {
  start: number;
  end: number;
}

interface Props {
  view: CalendarView;
  days: CalendarDay[];
  shifts: CalendarShift[];
  zone: string;
  today: number;
  nameOf: (userId: string) => string;
  /** A colour cue per person (the name carries the meaning). */
  toneOf: (userId: string) => number;
  /** Choosing a day or a shift: the range an override would cover. */
  onPick?: ((p: RangePick) => void) | undefined;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/**
 * Final shifts on a week or month grid of days in `zone`. Every day and every shift is a button (when
 * `onPick` is given), so an override can be started from the keyboard; on a narrow screen the grid
 * becomes a list of days.
 */
export function Calendar({ view, days, shifts, zone, today, nameOf, toneOf, onPick }: Props) {
  const dayLabel = (d: CalendarDay) => formatIn(d.wall, 'UTC', { weekday: 'long', day: 'numeric', month: 'long' });
  const shortLabel = (d: CalendarDay) => formatIn(d.wall, 'UTC', { weekday: 'short', day: 'numeric' });
  return (
    <div className={`cal cal-${view}`} data-testid="calendar">
      <div className="cal-head" aria-hidden="true">{WEEKDAYS.map((w) => <span key={w}>{w}</span>)}</div>
      <ol className="cal-days">
        {days.map((d) => {
          const on = shiftsOn(shifts, d);
          const cls = ['cal-day', d.outside ? 'cal-out' : '', d.wall === today ? 'cal-today' : ''].filter(Boolean).join(' ');
          return (
            <li key={d.wall} className={cls} aria-label={dayLabel(d)}>
              {onPick ? (
                <button type="button" className="cal-date" onClick={() => onPick({ start: d.start, end: d.end })}
                  aria-label={`${shortLabel(d)}: add an override on ${dayLabel(d)}`}>
                  {shortLabel(d)}
                </button>
              ) : <span className="cal-date">{shortLabel(d)}</span>}
              {on.length === 0 ? <p className="muted cal-none">Nobody</p> : (
                <ul className="cal-shifts">
                  {on.map((s) => {
                    const start = Math.max(Date.parse(s.startsAt), d.start);
                    const end = Math.min(Date.parse(s.endsAt), d.end);
                    const text = `${timeIn(start, zone)}–${end === d.end ? '24:00' : timeIn(end, zone)} ${nameOf(s.userId)}`;
                    const what = s.source === 'override' ? 'override' : `layer ${s.layerName ?? ''}`;
                    const cls = `shift tone-${toneOf(s.userId)}${s.source === 'override' ? ' shift-override' : ''}`;
                    return (
                      <li key={`${s.startsAt}${s.userId}${s.source}`}>
                        {onPick ? (
                          <button type="button" className={cls} title={what} aria-label={`${text} (${what}): override this shift`}
                            onClick={() => onPick({ start: Date.parse(s.startsAt), end: Date.parse(s.endsAt) })}>
                            {text}
                          </button>
                        ) : <span className={cls} title={what}>{text}</span>}
                      </li>
                    );
                  })}
                </ul>
              )}
            </li>
          );
        })}
      </ol>
    </div>
  );
}
