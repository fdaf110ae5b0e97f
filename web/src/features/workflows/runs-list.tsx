import { Link } from 'react-router';
import type { WorkflowRun } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading } from '../../components/page';
import { useAlert, useIncident } from '../alerts/alerts-api';
import { actionLabel } from './action-types';
import { triggerLabel } from './workflows-page';
import { useRuns } from './workflows-api';
import { TableWrap } from '../../components/table-wrap';

const OUTCOME: Record<WorkflowRun['actions'][number]['status'], string> = { done: 'ok', queued: 'queued', skipped: 'skipped', failed: 'failed' };

function AlertLink({ id }: { id: string }) {
  const alert = useAlert(id);
  return <Link to={`/alerts/${id}`}>{alert.data?.data.title ?? (alert.isError ? 'Deleted alert' : id)}</Link>;
}

function IncidentLink({ id }: { id: string }) {
  const incident = useIncident(id);
  return <Link to={`/incidents/${id}`}>{incident.data ? `Incident #${incident.data.data.number}` : 'The incident'}</Link>;
}

/** A workflow's recent runs: the alert, when, whether it matched, and each action's outcome. */
export function RunsList({ workflowId }: { workflowId: string }) {
  const runs = useRuns(workflowId);
  const rows = runs.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <section className="panel" aria-labelledby="runs-title">
      <div className="page-head">
        <h2 id="runs-title">Recent runs</h2>
        <button type="button" className="secondary small" onClick={() => runs.refetch()} disabled={runs.isFetching}>Refresh</button>
      </div>
      <ErrorDisplay error={runs.error} />
      {runs.isPending ? <Loading rows={3} /> : !runs.data ? null : rows.length === 0 ? (
        <p className="muted">No runs yet: the workflow runs when an alert event of its trigger happens while it is enabled.</p>
      ) : (
        <TableWrap label="Runs">
          <table>
            <thead><tr><th scope="col">When</th><th scope="col">Alert</th><th scope="col">Outcome</th></tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-testid="run">
                  <td>{formatTime(r.createdAt)}<span className="hint">{triggerLabel(r.trigger)}</span></td>
                  <td className="title-cell"><AlertLink id={r.alertId} /></td>
                  <td>
                    {!r.matched ? <span className="muted">Did not match: no action ran.</span> : (
                      <ol className="outcomes">
                        {r.actions.map((a) => (
                          <li key={a.index}>
                            <span className={`badge outcome-${a.status}`}>{OUTCOME[a.status]}</span> {actionLabel(a.type)}
                            {a.detail && <>: <span className="break">{a.detail}</span></>}
                            {a.incidentId && <> · <IncidentLink id={a.incidentId} /></>}
                          </li>
                        ))}
                      </ol>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {runs.hasNextPage && (
        <div className="pager">
          <button type="button" className="secondary" disabled={runs.isFetchingNextPage} onClick={() => void runs.fetchNextPage()}>
            {runs.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </section>
  );
}
