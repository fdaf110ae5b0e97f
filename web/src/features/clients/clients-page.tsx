import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useClientList, useCreateClient } from './clients-api';
import { ClientForm } from './client-form';
import { TableWrap } from '../../components/table-wrap';

export default function ClientsPage() {
  const list = useClientList();
  const create = useCreateClient();
  const canWrite = useCan('clients:write');
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const rows = list.data?.data ?? [];
  return (
    <Page title="Clients" actions={canWrite && !creating ? <button type="button" onClick={() => setCreating(true)}>New client</button> : undefined}>
      {creating && (
        <ClientForm title="New client" initial={null} submitLabel="Create client" busy={create.isPending} error={create.error} onCancel={() => setCreating(false)}
          onSubmit={(body) => create.mutate(body, { onSuccess: (r) => navigate(`/clients/${r.data.id}`) })} />
      )}
      <ErrorDisplay error={list.error} />
      {list.isPending ? <Loading /> : rows.length === 0 ? (
        <EmptyState title="No clients yet">
          <p>A client is a customer whose alerts you handle: alerts with its slug in labels.client, or from its integrations, belong to it.
            {canWrite ? ' Choose “New client” to add one.' : ' Ask an admin to add one.'}</p>
        </EmptyState>
      ) : (
        <TableWrap label="Clients">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col" className="wide-only">Contact</th></tr></thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.id}>
                  <td className="title-cell"><Link to={`/clients/${c.id}`}>{c.name}</Link></td>
                  <td><code>{c.slug}</code></td>
                  <td className="wide-only break">{c.contactEmail ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Page>
  );
}
