import { useState } from 'react';
import type { ApiKey } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from './api-keys-api';
import { NewKeyForm } from './new-key-form';
import { TableWrap } from '../../components/table-wrap';

export default function ApiKeysPage() {
  const canWrite = useCan('api_keys:write');
  const list = useApiKeys();
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const rows = list.data?.data ?? [];
  const done = () => {
    create.reset();
    setCreating(false);
  };
  return (
    <Page title="API keys" actions={canWrite && !creating ? <button type="button" onClick={() => setCreating(true)}>New API key</button> : undefined}>
      <p className="muted">Keys let scripts and tools use the REST API with <code>Authorization: Bearer &lt;key&gt;</code>.</p>
      {creating && (
        <NewKeyForm onCreate={(input) => create.mutate(input)} onDone={done} error={create.error} busy={create.isPending} created={create.data?.data} />
      )}
      <ErrorDisplay error={list.error ?? revoke.error} />
      {list.isPending ? <Loading /> : rows.length === 0 ? (
        <EmptyState title="No API keys">
          <p>{canWrite ? 'Choose “New API key” to create one for a script or tool.' : 'Ask an owner or admin to create a key.'}</p>
        </EmptyState>
      ) : (
        <TableWrap label="API keys">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Expires</th>
                <th scope="col">Last used</th>{canWrite && <th scope="col"><span className="sr-only">Actions</span></th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td><code>{k.prefix}…</code></td>
                  <td className="scopes-cell">{k.scopes.join(', ')}</td>
                  <td>{k.expiresAt ? formatTime(k.expiresAt) : 'Never'}</td>
                  <td>{formatTime(k.lastUsedAt)}</td>
                  {canWrite && <td><button type="button" className="danger" onClick={() => setRevoking(k)}>Revoke</button></td>}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <ConfirmDialog open={revoking !== null} title={`Revoke ${revoking?.name ?? ''}?`} confirmLabel="Revoke key" danger busy={revoke.isPending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSettled: () => setRevoking(null) })}>
        <p>Every request made with this key is refused from now on. This cannot be undone.</p>
      </ConfirmDialog>
    </Page>
  );
}
