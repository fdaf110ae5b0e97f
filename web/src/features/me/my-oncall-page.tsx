import { Link } from 'react-router';
import type { MyShift } from '../../api/types';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { CalendarFeed } from '../../components/calendar-feed';
import { ErrorDisplay } from '../../components/error-display';
import { formatAge, formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { dateTimeIn, spanIn, timeIn, viewerZone } from '../../components/zone';
import { useCan } from '../auth/session';
import { useAcknowledge, useMyIncidents, useMyOnCall } from './me-api';

const zoneName = (zone: string) => zone.split('/').pop()?.replace(/_/g, ' ') ?? zone;

/** Who follows a shift, in words. */
const nextOne = (s: MyShift) => (s.next.user ? <>then <strong>{s.next.user.name}</strong> takes over</> : <>then <strong>nobody</strong> is on call</>);

/** A shift's span on the viewer's clock, and on the schedule's below it when that is another zone. */
function Span({ s, mine }: { s: MyShift; mine: string }) {
  return (
    <>
      <strong>{spanIn(s.startsAt, s.endsAt, mine)}</strong>
      {s.timezone !== mine && <span className="muted zone-line">{spanIn(s.startsAt, s.endsAt, s.timezone)} in {zoneName(s.timezone)} ({s.timezone})</span>}
    </>
  );
}

function Shifts() {
  const q = useMyOnCall();
  const mine = viewerZone();
  if (q.isPending) return <Loading rows={3} />;
  if (q.error) return <ErrorDisplay error={q.error} />;
  const now = q.data.data.shifts.filter((s) => s.current);
  const next = q.data.data.shifts.filter((s) => !s.current);
  return (
    <>
      <section className="panel" aria-labelledby="now-title">
        <h2 id="now-title">Now</h2>
        {now.length === 0 ? <p data-testid="on-call-now">You are not on call now.</p> : (
          <ul className="short-list" data-testid="on-call-now">
            {now.map((s) => (
              <li key={s.scheduleId}>
                You are on call in <Link to={`/oncall/${s.scheduleId}`}>{s.scheduleName}</Link> until{' '}
                <strong>{dateTimeIn(s.endsAt, mine)}</strong>
                {s.timezone !== mine && <span className="muted"> ({timeIn(s.endsAt, s.timezone)} in {zoneName(s.timezone)})</span>}; {nextOne(s)}.
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="panel" aria-labelledby="next-title">
        <h2 id="next-title">Your next shifts</h2>
        <p className="hint">Times in your zone, {mine}; a schedule's own zone below where it differs.</p>
        {next.length === 0 ? <p className="muted">No shift in the next 30 days.</p> : (
          <ol className="shifts-list">
            {next.map((s) => (
              <li key={`${s.scheduleId}${s.startsAt}`}>
                <Span s={s} mine={mine} />
                <span><Link to={`/oncall/${s.scheduleId}`}>{s.scheduleName}</Link> · {nextOne(s)}</span>
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

function Incidents() {
  const q = useMyIncidents();
  const ack = useAcknowledge();
  const canWrite = useCan('incidents:write');
  if (q.isPending) return <Loading rows={2} />;
  if (q.error) return <ErrorDisplay error={q.error} />;
  const rows = q.data.data;
  if (rows.length === 0) return <p className="muted">No open incident is assigned to you or paged you.</p>;
  return (
    <ul className="cards" aria-label="My open incidents">
      {rows.map((i) => (
        <li key={i.id} className="card-item">
          <Link className="clamp card-title" to={`/incidents/${i.id}`}>#{i.number} {i.title}</Link>
          <div className="card-foot">
            <p className="meta-line">
              <SeverityBadge value={i.severity} /> <StatusBadge value={i.status} />
              <time className="muted" dateTime={i.createdAt} title={formatTime(i.createdAt)}>{formatAge(i.createdAt)}</time>
            </p>
            {canWrite && i.status === 'triggered' && (
              <div className="row-actions">
                <button type="button" disabled={ack.isPending} aria-label={`Acknowledge #${i.number}`} onClick={() => ack.mutate(i.id)}>Acknowledge</button>
              </div>
            )}
          </div>
        </li>
      ))}
      <ErrorDisplay error={ack.error} />
    </ul>
  );
}

/** The signed-in member's on-call life: current and next shifts, who follows, their open incidents, their calendar feed. */
export default function MyOnCallPage() {
  return (
    <Page title="My on-call">
      <Shifts />
      <section className="panel" aria-labelledby="incidents-title">
        <div className="section-head">
          <h2 id="incidents-title">My open incidents</h2>
          <Link to="/incidents?mine=true">See all</Link>
        </div>
        <Incidents />
      </section>
      <section className="panel" aria-labelledby="feed-title">
        <h2 id="feed-title">My calendar</h2>
        <CalendarFeed of={{ kind: 'member' }} canChange what="your own shifts in every schedule" />
      </section>
    </Page>
  );
}
