import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { RecordError } from '../../components/error-display';
import { Loading, Page } from '../../components/page';
import { viewerZone } from '../../components/zone';
import { useCan } from '../auth/session';
import { useCreateWindow, useDeleteWindow, useUpdateWindow, useWindow } from './suppression-api';
import { useAlert } from '../alerts/alerts-api';
import { bodyOf, formOf, newWindow, windowFromAlert, type WindowForm } from './window-form';
import { WindowEditor } from './window-editor';

/** A new window: blank, or prefilled from the alert the address names (`?fromAlert=<id>`, the alert page's link). */
function NewWindow() {
  const fromAlert = useSearchParams()[0].get('fromAlert');
  if (!fromAlert) return <NewWindowFrom initial={newWindow(viewerZone(), Date.now())} />;
  return <NewWindowFromAlert id={fromAlert} />;
}

function NewWindowFromAlert({ id }: { id: string }) {
  const alert = useAlert(id);
  if (alert.isPending) return <Page title="New suppression window"><Loading rows={6} /></Page>;
  if (alert.error) {
    return (
      <Page title="New suppression window">
        <RecordError error={alert.error} missing={<EmptyState title="This alert does not exist"><p><Link to="/suppression/new">Start from a blank window</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  return <NewWindowFrom initial={windowFromAlert(alert.data.data, viewerZone(), Date.now())} from={alert.data.data.title} />;
}

function NewWindowFrom({ initial, from }: { initial: WindowForm; from?: string }) {
  const create = useCreateWindow();
  const navigate = useNavigate();
  const canWrite = useCan('suppression:write');
  return (
    <Page title="New suppression window">
      {from !== undefined && <p className="muted">Prefilled from the alert <q className="break">{from}</q>: its labels, for an hour from now.</p>}
      <WindowEditor initial={initial} saving={create.isPending} error={create.error} submitLabel="Create window" readOnly={!canWrite}
        onSave={(f) => create.mutate(bodyOf(f), { onSuccess: () => navigate('/suppression') })} />
    </Page>
  );
}

function EditWindow({ id }: { id: string }) {
  const q = useWindow(id);
  const update = useUpdateWindow(id);
  const remove = useDeleteWindow(id);
  const canWrite = useCan('suppression:write');
  const navigate = useNavigate();
  const [confirm, setConfirm] = useState(false);
  if (q.isPending) return <Page title="Suppression window"><Loading rows={6} /></Page>;
  if (q.error) {
    return (
      <Page title="Suppression window">
        <RecordError error={q.error} missing={<EmptyState title="This window does not exist"><p>Go back to <Link to="/suppression">the suppression windows</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  const w = q.data.data;
  return (
    <Page title={w.name}>
      <WindowEditor initial={formOf(w)} saving={update.isPending} error={update.error ?? remove.error} submitLabel="Save window" readOnly={!canWrite}
        onSave={(f) => update.mutate(bodyOf(f), { onSuccess: () => navigate('/suppression') })}
        extraActions={canWrite ? <button type="button" className="danger" onClick={() => setConfirm(true)}>Delete</button> : undefined} />
      <ConfirmDialog open={confirm} title={`Delete ${w.name}?`} confirmLabel="Delete window" danger busy={remove.isPending}
        onCancel={() => setConfirm(false)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate('/suppression'), onSettled: () => setConfirm(false) })}>
        <p>The alerts it suppresses return to firing at once, unless another window holds them.</p>
      </ConfirmDialog>
    </Page>
  );
}

export default function WindowEditorPage() {
  const { id } = useParams();
  return id ? <EditWindow id={id} /> : <NewWindow />;
}
