import { Link, useParams } from 'react-router';
import { useActorText } from '../../api/actors';
import type { Incident } from '../../api/types';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay, RecordError } from '../../components/error-display';
import { formatAge, formatTime, plural } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useIncident, useUpdateIncident } from './incidents-api';
import { AssignForm, EscalateNow, NoteForm, ResponderForm, SeverityForm, SnoozeForm } from './incident-work';
import { Timeline } from './timeline';

function Detail({ incident }: { incident: Incident }) {
  const canWrite = useCan('incidents:write');
  const update = useUpdateIncident(incident.id);
  const actorText = useActorText();
  const open = incident.status !== 'resolved';
  return (
    <Page
      title={`#${incident.number} ${incident.title}`}
      thumb
      actions={canWrite && open ? (
        <>
          {incident.status === 'triggered' && (
            <button type="button" disabled={update.isPending} onClick={() => update.mutate({ status: 'acknowledged' })}>Acknowledge</button>
          )}
          <button type="button" disabled={update.isPending} onClick={() => update.mutate({ status: 'resolved' })}>Resolve</button>
        </>
      ) : undefined}
    >
      <ErrorDisplay error={update.error} />
      <p className="meta-line">
        <SeverityBadge value={incident.severity} /> <StatusBadge value={incident.status} />
        <span>{plural(incident.alertCount, 'alert')}</span>
        <span>Opened <time dateTime={incident.createdAt} title={formatTime(incident.createdAt)}>{formatAge(incident.createdAt)}</time></span>
        <span>Assignee: {incident.assigneeId ? actorText({ type: 'user', id: incident.assigneeId }) : 'nobody'}</span>
        {incident.snoozedUntil && <span className="badge snoozed">Snoozed until {formatTime(incident.snoozedUntil)}</span>}
      </p>
      {canWrite && open && (
        <section className="panel work" aria-labelledby="work-heading">
          <h2 id="work-heading">Work the incident</h2>
          <div className="work-forms">
            <AssignForm key={`a${incident.assigneeId ?? ''}`} incident={incident} />
            <ResponderForm incident={incident} />
            <SnoozeForm incident={incident} />
            <SeverityForm key={`s${incident.severity}`} incident={incident} />
            {incident.status === 'triggered' && <EscalateNow incident={incident} />}
          </div>
        </section>
      )}
      <div className="grid-2">
        <section className="panel" aria-labelledby="timeline-heading">
          <h2 id="timeline-heading">Timeline</h2>
          <Timeline incident={incident} />
          {canWrite && <NoteForm incident={incident} />}
        </section>
        <section className="panel" aria-labelledby="details-heading">
          <h2 id="details-heading">Details</h2>
          <dl className="pairs">
            <div><dt>Opened</dt><dd>{formatTime(incident.createdAt)}</dd></div>
            <div><dt>Acknowledged</dt><dd>{incident.acknowledgedAt ? formatTime(incident.acknowledgedAt) : 'Not acknowledged'}</dd></div>
            <div><dt>Resolved</dt><dd>{incident.resolvedAt ? formatTime(incident.resolvedAt) : 'Not resolved'}</dd></div>
            <div><dt>Grouped by</dt><dd className="break">{incident.groupKey || '—'}</dd></div>
          </dl>
          <h3>Alerts</h3>
          {incident.alerts.length === 0 ? <p className="muted">No alerts.</p> : (
            <ul className="short-list">
              {incident.alerts.map((a) => (
                <li key={a.id} className="alert-line">
                  <Link className="clamp" to={`/alerts/${a.id}`}>{a.title}</Link>
                  <span className="alert-meta"><SeverityBadge value={a.severity} /> <StatusBadge value={a.status} />
                    <time className="muted" dateTime={a.createdAt} title={formatTime(a.createdAt)}>{formatAge(a.createdAt)}</time></span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </Page>
  );
}

export default function IncidentDetailPage() {
  const { id = '' } = useParams();
  const incident = useIncident(id);
  if (incident.isPending) return <Page title="Incident"><Loading rows={8} /></Page>;
  if (incident.error) {
    return (
      <Page title="Incident">
        <RecordError error={incident.error} missing={<EmptyState title="This incident does not exist"><p>It may belong to another organization. Go back to <Link to="/incidents">the incidents</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  return <Detail incident={incident.data.data} />;
}
