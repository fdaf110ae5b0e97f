import { Link, useNavigate } from 'react-router';
import { Page } from '../../components/page';
import { WorkflowEditor } from './workflow-editor';
import { useCreateWorkflow } from './workflows-api';

export default function NewWorkflowPage() {
  const create = useCreateWorkflow();
  const navigate = useNavigate();
  return (
    <Page title="New workflow" actions={<Link className="button secondary" to="/workflows">Back to the workflows</Link>}>
      <p className="muted">Build the conditions and actions, try them on an alert, then save. A new workflow is disabled until you enable it.</p>
      <WorkflowEditor initial={null} saving={create.isPending} saveError={create.error} saved={false}
        onSave={(body) => create.mutate(body, { onSuccess: (r) => navigate(`/workflows/${r.data.id}`) })} />
    </Page>
  );
}
