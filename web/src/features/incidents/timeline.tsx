import { Link } from 'react-router';
import { useActorText, useMemberName } from '../../api/actors';
import { useScheduleNames } from '../../api/schedules';
import type { Incident } from '../../api/types';
import { formatTime } from '../../components/format';
import { describeEntry, type TimelineNames } from './timeline-fns';

/** What happened to the incident, oldest first, each entry in words; what a sender or target wrote stays text. */
export function Timeline({ incident }: { incident: Incident }) {
  const actorText = useActorText();
  const schedule = useScheduleNames();
  const user = useMemberName();
  const titles = new Map(incident.alerts.map((a) => [a.id, a.title]));
  const names: TimelineNames = { user, schedule, alert: (id) => titles.get(id), time: formatTime };
  if (incident.timeline.length === 0) return <p className="muted">Nothing has happened yet.</p>;
  return (
    <ol className="timeline">
      {incident.timeline.map((e) => {
        const { text, alertId, quote } = describeEntry(e, names);
        return (
          <li key={e.id} data-type={e.type}>
            <time dateTime={e.createdAt}>{formatTime(e.createdAt)}</time>
            <span className="break">{alertId ? <Link to={`/alerts/${alertId}`}>{text}</Link> : text}</span>
            {e.actor.type !== 'system' && <span className="muted">by {e.actor.type === 'user' && e.actor.id ? user(e.actor.id) : actorText(e.actor)}</span>}
            {quote !== undefined && <p className="note prewrap break">{quote}</p>}
          </li>
        );
      })}
    </ol>
  );
}
