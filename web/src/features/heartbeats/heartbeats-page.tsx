import { useState } from 'react';
import { Link } from 'react-router';
import { useClients } from '../../api/clients';
import type { NewHeartbeat } from '../../api/types';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useCreateHeartbeat, useHeartbeats } from './heartbeats-api';
import { HeartbeatForm, HeartbeatState, PingUrl } from './heartbeat-parts';
import { every } from './heartbeats-fns';
import { TableWrap } from '../../components/table-wrap';

export default function HeartbeatsPage() {
  const list = useHeartbeats();
  const clients = useClients();
  const create = useCreateHeartbeat();
  const canWrite = useCan('heartbeats:write');
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<NewHeartbeat | null>(null);
  const rows = list.data?.data ?? [];
  return (
    <Page title="Heartbeats" actions={canWrite && !creating ? <button type="button" onClick={() => { setCreating(true); setCreated(null); }}>New heartbeat</button> : undefined}>
      <p className="muted">A heartbeat expects a ping from a job (a cron job, a backup, a batch) at least every interval. When none comes in time, it opens an alert; the next ping resolves it.</p>
      {creating && (
        <HeartbeatForm
          heading="New heartbeat"
          initial={{ name: '', intervalSeconds: 86_400, graceSeconds: 300, severity: 'critical', clientId: null, labels: {} }}
          clients={clients.data?.data ?? []}
          submitLabel="Create heartbeat"
          busy={create.isPending}
          error={create.error}
          onCancel={() => setCreating(false)}
          onSubmit={({ clientId, ...fields }) => create.mutate({ ...fields, ...(clientId && { clientId }) }, {
            onSuccess: (r) => {
              setCreating(false);
              setCreated(r.data);
            },
          })}
        />
      )}
      {created && <PingUrl url={created.pingUrl} onDone={() => setCreated(null)} />}
      <ErrorDisplay error={list.error} />
      {list.isPending ? <Loading /> : rows.length === 0 ? (
        <EmptyState title="No heartbeats yet">
          <p>Add one for each job that must not silently stop running.
            {canWrite ? ' Choose “New heartbeat” to create one.' : ' Ask an admin to create one.'}</p>
        </EmptyState>
      ) : (
        <TableWrap label="Heartbeats">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th><th scope="col">State</th><th scope="col">Expected</th>
                <th scope="col">Last ping</th><th scope="col">Next due</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((b) => (
                <tr key={b.id}>
                  <td className="title-cell"><Link to={`/heartbeats/${b.id}`}>{b.name}</Link></td>
                  <td><HeartbeatState value={b.state} /></td>
                  <td>{every(b)}</td>
                  <td>{b.lastPingAt ? formatTime(b.lastPingAt) : 'never'}</td>
                  <td>{b.state === 'paused' ? '—' : formatTime(b.nextDueAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Page>
  );
}
