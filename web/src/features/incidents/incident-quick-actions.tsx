import { Link } from 'react-router';
import type { IncidentListItem } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { useSession } from '../auth/session';
import { useEscalateNow, useSnooze, useUpdateIncident } from './incidents-api';

/**
 * What a list row offers (a card's buttons on a phone): the next step of the incident's life — Acknowledge
 * while triggered, else Resolve — "Assign to me" for an open one not yet yours, and under "More" a snooze of
 * an hour, escalate now, and the way to its page for the rest (notes, severity, responders).
 */
export function QuickActions({ incident: i }: { incident: IncidentListItem }) {
  const me = useSession().user.id;
  const update = useUpdateIncident(i.id);
  const snooze = useSnooze(i.id);
  const escalate = useEscalateNow(i.id);
  if (i.status === 'resolved') return null;
  const label = `#${i.number}`;
  return (
    <div className="row-actions">
      {i.status === 'triggered'
        ? <button type="button" disabled={update.isPending} aria-label={`Acknowledge ${label}`} onClick={() => update.mutate({ status: 'acknowledged' })}>Acknowledge</button>
        : <button type="button" disabled={update.isPending} aria-label={`Resolve ${label}`} onClick={() => update.mutate({ status: 'resolved' })}>Resolve</button>}
      {i.assigneeId !== me && (
        <button type="button" className="secondary" disabled={update.isPending} aria-label={`Assign to me: ${label}`} onClick={() => update.mutate({ assigneeId: me })}>Assign to me</button>
      )}
      <details className="more">
        <summary aria-label={`More actions: ${label}`}>More</summary>
        <div className="more-menu">
          <button type="button" className="secondary" disabled={snooze.isPending} onClick={() => snooze.mutate(60)}>Snooze 1 hour</button>
          {i.status === 'triggered' && <button type="button" className="secondary" disabled={escalate.isPending} onClick={() => escalate.mutate()}>Escalate now</button>}
          <Link to={`/incidents/${i.id}`}>Reassign, add a note or a responder, change severity</Link>
        </div>
      </details>
      <ErrorDisplay error={update.error ?? snooze.error ?? escalate.error} />
    </div>
  );
}
