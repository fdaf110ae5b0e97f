import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useActorText, useMembers } from '../../api/actors';
import type { Incident } from '../../api/types';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay, RecordError } from '../../components/error-display';
import { SelectField } from '../../components/form';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useIncident, useUpdateIncident } from './incidents-api';
import { Timeline } from './timeline';

function AssignForm({ incident }: { incident: Incident }) {
  const members = useMembers().data?.data ?? [];
  const update = useUpdateIncident(incident.id);
  const [choice, setChoice] = useState(incident.assigneeId ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ assigneeId: choice || null });
  };
  return (
    <form className="assign" onSubmit={submit}>
      <SelectField label="Assignee" value={choice} onChange={(e) => setChoice(e.target.value)}>
        <option value="">Unassigned</option>
        {members.map((u) => <option key={u.id} value={u.id}>{u.name} ({u.email})</option>)}
      </SelectField>
      <button type="submit" disabled={update.isPending || choice === (incident.assigneeId ?? '')}>Assign</button>
      <ErrorDisplay error={update.error} />
    </form>
  );
}

function Detail({ incident }: { incident: Incident }) {
  const canWrite = useCan('incidents:write');
  const update = useUpdateIncident(incident.id);
  const actorText = useActorText();
  const open = incident.status !== 'resolved';
  return (
    <Page
      title={`#${incident.number} ${incident.title}`}
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
        <span>{incident.alertCount} alert{incident.alertCount === 1 ? '' : 's'}</span>
        <span>Assignee: {incident.assigneeId ? actorText({ type: 'user', id: incident.assigneeId }) : 'nobody'}</span>
      </p>
      <div className="grid-2">
        <section className="panel">
          <h2>Timeline</h2>
          <Timeline incident={incident} />
        </section>
        <section className="panel">
          <h2>Details</h2>
          <dl className="pairs">
            <div><dt>Opened</dt><dd>{formatTime(incident.createdAt)}</dd></div>
            <div><dt>Acknowledged</dt><dd>{incident.acknowledgedAt ? formatTime(incident.acknowledgedAt) : 'Not acknowledged'}</dd></div>
            <div><dt>Resolved</dt><dd>{incident.resolvedAt ? formatTime(incident.resolvedAt) : 'Not resolved'}</dd></div>
            <div><dt>Grouped by</dt><dd className="break">{incident.groupKey || '—'}</dd></div>
          </dl>
          {canWrite && open && <AssignForm key={incident.assigneeId ?? ''} incident={incident} />}
        </section>
      </div>
      <section className="panel">
        <h2>Alerts</h2>
        {incident.alerts.length === 0 ? <p className="muted">No alerts.</p> : (
          <div className="table-wrap">
            <table>
              <thead><tr><th scope="col">Title</th><th scope="col">Severity</th><th scope="col">Status</th><th scope="col" className="wide-only">Created</th></tr></thead>
              <tbody>
                {incident.alerts.map((a) => (
                  <tr key={a.id}>
                    <td className="title-cell"><Link to={`/alerts/${a.id}`}>{a.title}</Link></td>
                    <td><SeverityBadge value={a.severity} /></td>
                    <td><StatusBadge value={a.status} /></td>
                    <td className="wide-only">{formatTime(a.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
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
