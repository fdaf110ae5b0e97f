import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useClients } from '../../api/clients';
import type { Heartbeat } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay, RecordError } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useDeleteHeartbeat, useHeartbeat, useRotateHeartbeatToken, useUpdateHeartbeat } from './heartbeats-api';
import { every, labelsText } from './heartbeats-fns';
import { HeartbeatForm, HeartbeatState, PingUrl } from './heartbeat-parts';

type Confirm = 'rotate' | 'delete' | null;

const STATE_TEXT: Record<Heartbeat['state'], string> = {
  new: 'Never pinged yet',
  up: 'Pinged in time',
  down: 'Missed: its alert is open until the next ping',
  paused: 'Paused: not checked',
};

function Detail({ heartbeat: b }: { heartbeat: Heartbeat }) {
  const canWrite = useCan('heartbeats:write');
  const clients = useClients();
  const update = useUpdateHeartbeat(b.id);
  const rotate = useRotateHeartbeatToken(b.id);
  const remove = useDeleteHeartbeat(b.id);
  const navigate = useNavigate();
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [editing, setEditing] = useState(false);
  const [newUrl, setNewUrl] = useState<string | null>(null);
  const clientName = (clients.data?.data ?? []).find((c) => c.id === b.clientId)?.name ?? b.clientId;
  return (
    <Page
      title={b.name}
      actions={canWrite ? (
        <>
          <button type="button" className="secondary" onClick={() => setEditing(true)} disabled={editing}>Edit</button>
          <button type="button" className="secondary" disabled={update.isPending} onClick={() => update.mutate({ paused: !b.paused })}>
            {b.paused ? 'Resume' : 'Pause'}
          </button>
          <button type="button" className="secondary" onClick={() => setConfirm('rotate')}>Rotate token</button>
          <button type="button" className="danger" onClick={() => setConfirm('delete')}>Delete</button>
        </>
      ) : undefined}
    >
      <ErrorDisplay error={(editing ? null : update.error) ?? rotate.error ?? remove.error} />
      {newUrl && <PingUrl url={newUrl} onDone={() => setNewUrl(null)} />}
      {editing && (
        <HeartbeatForm
          heading="Edit heartbeat"
          initial={b}
          clients={clients.data?.data ?? []}
          submitLabel="Save"
          busy={update.isPending}
          error={update.error}
          onCancel={() => { setEditing(false); update.reset(); }}
          onSubmit={(fields) => update.mutate(fields, { onSuccess: () => setEditing(false) })}
        />
      )}
      <dl className="pairs panel">
        <div><dt>State</dt><dd><HeartbeatState value={b.state} /> {STATE_TEXT[b.state]}</dd></div>
        <div><dt>Expected</dt><dd>{every(b)}</dd></div>
        <div><dt>Last ping</dt><dd>{b.lastPingAt ? formatTime(b.lastPingAt) : 'never'}</dd></div>
        <div><dt>Next due</dt><dd>{b.paused ? '—' : formatTime(b.nextDueAt)}</dd></div>
        <div><dt>Alert severity</dt><dd>{b.severity}</dd></div>
        <div><dt>Client</dt><dd>{clientName ?? 'none'}</dd></div>
        <div><dt>Labels</dt><dd>{labelsText(b.labels) || 'none'}</dd></div>
      </dl>
      <p className="muted">Its alerts: <Link to={`/alerts?source=heartbeat`}>heartbeat alerts</Link>. The ping URL was shown once, when the heartbeat was created; rotate the token for a new one.</p>
      <ConfirmDialog open={confirm === 'rotate'} title="Rotate the ping token?" confirmLabel="Rotate token" danger busy={rotate.isPending}
        onCancel={() => setConfirm(null)}
        onConfirm={() => rotate.mutate(undefined, { onSuccess: (r) => setNewUrl(r.data.pingUrl), onSettled: () => setConfirm(null) })}>
        <p>The current ping URL stops working at once: the job must be given the new one, or the heartbeat will be missed.</p>
      </ConfirmDialog>
      <ConfirmDialog open={confirm === 'delete'} title={`Delete ${b.name}?`} confirmLabel="Delete heartbeat" danger busy={remove.isPending}
        onCancel={() => setConfirm(null)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate('/heartbeats'), onSettled: () => setConfirm(null) })}>
        <p>Its ping URL stops working and its open alert, if any, is resolved.</p>
      </ConfirmDialog>
    </Page>
  );
}

export default function HeartbeatPage() {
  const { id = '' } = useParams();
  const q = useHeartbeat(id);
  if (q.isPending) return <Page title="Heartbeat"><Loading rows={6} /></Page>;
  if (q.error) {
    return (
      <Page title="Heartbeat">
        <RecordError error={q.error} missing={<EmptyState title="This heartbeat does not exist"><p>Go back to <Link to="/heartbeats">the heartbeats</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  return <Detail heartbeat={q.data.data} />;
}
