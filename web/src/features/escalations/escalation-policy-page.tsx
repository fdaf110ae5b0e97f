import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { EscalationPolicy } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay, RecordError } from '../../components/error-display';
import { plural } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useDeletePolicy, usePolicy, useTargetChoices, useUpdatePolicy } from './escalations-api';
import { describeTarget } from './escalations-fns';
import { PolicyForm } from './policy-form';

function Detail({ policy: p }: { policy: EscalationPolicy }) {
  const canWrite = useCan('escalations:write');
  const names = useTargetChoices();
  const update = useUpdatePolicy(p.id);
  const remove = useDeletePolicy(p.id);
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState(false);
  return (
    <Page title={p.name} actions={canWrite ? (
      <>
        <button type="button" className="secondary" onClick={() => setEditing(true)} disabled={editing}>Edit</button>
        <button type="button" className="danger" onClick={() => setConfirm(true)}>Delete</button>
      </>
    ) : undefined}>
      <ErrorDisplay error={remove.error} />
      {editing && (
        <PolicyForm heading="Edit escalation policy" initial={{ name: p.name, repeat: p.repeat, steps: p.steps }} names={names} submitLabel="Save"
          busy={update.isPending} error={update.error} onCancel={() => { setEditing(false); update.reset(); }}
          onSubmit={(body) => update.mutate(body, { onSuccess: () => setEditing(false) })} />
      )}
      <ol className="panel">
        {p.steps.map((s, i) => (
          <li key={i}>
            Page {s.targets.map((t) => describeTarget(t, names)).join(', ')}; then wait {s.delayMinutes} min
            {i === p.steps.length - 1 ? (p.repeat > 0 ? ` and start again (${plural(p.repeat, 'more time')})` : ' (the last step)') : ''}.
          </li>
        ))}
      </ol>
      <p className="muted">Escalations under way keep the policy as it was when they started. Acknowledging or resolving the incident stops them.</p>
      <ConfirmDialog open={confirm} title={`Delete ${p.name}?`} confirmLabel="Delete policy" danger busy={remove.isPending}
        onCancel={() => setConfirm(false)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate('/escalation-policies'), onSettled: () => setConfirm(false) })}>
        <p>A policy a workflow uses cannot be deleted: change the workflow first.</p>
      </ConfirmDialog>
    </Page>
  );
}

export default function EscalationPolicyPage() {
  const { id = '' } = useParams();
  const q = usePolicy(id);
  if (q.isPending) return <Page title="Escalation policy"><Loading rows={6} /></Page>;
  if (q.error) {
    return (
      <Page title="Escalation policy">
        <RecordError error={q.error} missing={<EmptyState title="This escalation policy does not exist"><p>Go back to <Link to="/escalation-policies">the escalation policies</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  return <Detail policy={q.data.data} />;
}
