import type { IncidentListItem } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { useSession } from '../auth/session';
import { useUpdateIncident } from './incidents-api';

/**
 * What a list row offers (a card's buttons on a phone): the next step of the incident's life — Acknowledge
 * while triggered, else Resolve — and, for an open one not yet yours, "Assign to me".
 */
export function QuickActions({ incident: i }: { incident: IncidentListItem }) {
  const me = useSession().user.id;
  const update = useUpdateIncident(i.id);
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
      <ErrorDisplay error={update.error} />
    </div>
  );
}
