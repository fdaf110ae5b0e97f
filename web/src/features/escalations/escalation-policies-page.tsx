import { useState } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useCreatePolicy, usePolicies, useTargetChoices } from './escalations-api';
import { blankStep, describeSteps } from './escalations-fns';
import { PolicyForm } from './policy-form';
import { TableWrap } from '../../components/table-wrap';

export default function EscalationPoliciesPage() {
  const list = usePolicies();
  const names = useTargetChoices();
  const create = useCreatePolicy();
  const canWrite = useCan('escalations:write');
  const [creating, setCreating] = useState(false);
  const rows = list.data?.data ?? [];
  return (
    <Page title="Escalation policies" actions={canWrite && !creating ? <button type="button" onClick={() => setCreating(true)}>New policy</button> : undefined}>
      <p className="muted">A policy pages its steps in order until someone acknowledges or resolves the incident. A workflow starts it (the “Escalate the incident” action).</p>
      {creating && (
        <PolicyForm heading="New escalation policy" initial={{ name: '', repeat: 0, steps: [blankStep()] }} names={names} submitLabel="Create policy"
          busy={create.isPending} error={create.error} onCancel={() => { setCreating(false); create.reset(); }}
          onSubmit={(body) => create.mutate(body, { onSuccess: () => setCreating(false) })} />
      )}
      <ErrorDisplay error={list.error} />
      {list.isPending ? <Loading /> : rows.length === 0 ? (
        <EmptyState title="No escalation policies yet">
          <p>A policy makes sure a page is answered: the on-call first, then the team's chat, then the secondary.
            {canWrite ? ' Choose “New policy” to create one.' : ' Ask an admin to create one.'}</p>
        </EmptyState>
      ) : (
        <TableWrap label="Escalation policies">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Steps</th><th scope="col">Repeats</th></tr></thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.id}>
                  <td className="title-cell"><Link to={`/escalation-policies/${p.id}`}>{p.name}</Link></td>
                  <td>{describeSteps(p.steps, names)}</td>
                  <td>{p.repeat}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Page>
  );
}
