import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Workflow } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay, RecordError } from '../../components/error-display';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { RunsList } from './runs-list';
import { WorkflowEditor } from './workflow-editor';
import { useDeleteWorkflow, useSetEnabled, useUpdateWorkflow, useWorkflow } from './workflows-api';

function Detail({ workflow: w }: { workflow: Workflow }) {
  const canWrite = useCan('workflows:write');
  const update = useUpdateWorkflow(w.id);
  const toggle = useSetEnabled();
  const remove = useDeleteWorkflow(w.id);
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  return (
    <Page
      title={w.name}
      actions={(
        <>
          <Link className="button secondary" to="/workflows">All workflows</Link>
          {canWrite && (
            <>
              <button type="button" className="secondary" disabled={toggle.isPending} onClick={() => toggle.mutate({ id: w.id, enabled: !w.enabled })}>
                {w.enabled ? 'Disable' : 'Enable'}
              </button>
              <button type="button" className="danger" onClick={() => setConfirming(true)}>Delete</button>
            </>
          )}
        </>
      )}
    >
      <p role="status" data-testid="workflow-state">{w.enabled ? 'Enabled: it runs on its trigger.' : 'Disabled: it does not run.'}</p>
      <ErrorDisplay error={toggle.error ?? remove.error} />
      <WorkflowEditor initial={w} saving={update.isPending} saveError={update.error} saved={update.isSuccess}
        onSave={(body) => update.mutate(body)} />
      <RunsList workflowId={w.id} />
      <ConfirmDialog open={confirming} title={`Delete ${w.name}?`} confirmLabel="Delete workflow" danger busy={remove.isPending}
        onCancel={() => setConfirming(false)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate('/workflows'), onSettled: () => setConfirming(false) })}>
        <p>It stops running and its runs are deleted. Incidents it opened stay.</p>
      </ConfirmDialog>
    </Page>
  );
}

export default function WorkflowPage() {
  const { id = '' } = useParams();
  const q = useWorkflow(id);
  if (q.isPending) return <Page title="Workflow"><Loading rows={8} /></Page>;
  if (q.error) {
    return (
      <Page title="Workflow">
        <RecordError error={q.error} missing={<EmptyState title="This workflow does not exist"><p>Go back to <Link to="/workflows">the workflows</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  return <Detail workflow={q.data.data} />;
}
