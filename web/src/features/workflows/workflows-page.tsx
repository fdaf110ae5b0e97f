import { Link } from 'react-router';
import type { Workflow } from '../../api/types';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { actionLabel } from './action-types';
import { TRIGGERS } from './workflow-fns';
import { useSetEnabled, useWorkflows } from './workflows-api';
import { TableWrap } from '../../components/table-wrap';

/** An on/off switch that says what it switches; read-only callers see the state as text. */
export function EnabledToggle({ workflow: w }: { workflow: Workflow }) {
  const canWrite = useCan('workflows:write');
  const toggle = useSetEnabled();
  if (!canWrite) return <>{w.enabled ? 'Enabled' : 'Disabled'}</>;
  return (
    <>
      <button type="button" role="switch" aria-checked={w.enabled} aria-label={`${w.name}: enabled`} className={`switch small ${w.enabled ? '' : 'secondary'}`}
        disabled={toggle.isPending} onClick={() => toggle.mutate({ id: w.id, enabled: !w.enabled })}>
        {w.enabled ? 'On' : 'Off'}
      </button>
      <ErrorDisplay error={toggle.error} />
    </>
  );
}

export const triggerLabel = (t: string): string => TRIGGERS.find((x) => x.value === t)?.label ?? t;

export default function WorkflowsPage() {
  const list = useWorkflows();
  const canWrite = useCan('workflows:write');
  const rows = list.data?.data ?? [];
  return (
    <Page title="Workflows" actions={canWrite ? <Link className="button" to="/workflows/new">New workflow</Link> : undefined}>
      <ErrorDisplay error={list.error} />
      {list.isPending ? <Loading /> : rows.length === 0 ? (
        <EmptyState title="No workflows yet">
          <p>A workflow acts on alerts that meet its conditions: it opens incidents, assigns them, sends emails and webhooks.
            {canWrite ? ' Choose “New workflow” to build one.' : ' Ask an admin to build one.'}</p>
        </EmptyState>
      ) : (
        <TableWrap label="Workflows">
          <table>
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Runs when</th><th scope="col">Actions</th><th scope="col" className="wide-only">Updated</th><th scope="col">Enabled</th></tr>
            </thead>
            <tbody>
              {rows.map((w) => (
                <tr key={w.id}>
                  <td className="title-cell"><Link to={`/workflows/${w.id}`}>{w.name}</Link></td>
                  <td>{triggerLabel(w.trigger)}</td>
                  <td>{w.actions.map((a) => actionLabel(a.type)).join(', ')}</td>
                  <td className="wide-only">{formatTime(w.updatedAt)}</td>
                  <td><EnabledToggle workflow={w} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Page>
  );
}
