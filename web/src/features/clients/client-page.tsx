import { useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Client } from '../../api/types';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay, RecordError } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useAlerts } from '../alerts/alerts-api';
import { useCan } from '../auth/session';
import { openAlertsOf, useClient, useClientIncidents, useClientIntegrations, useClientWindows, useDeleteClient, useUpdateClient } from './clients-api';
import { ClientForm } from './client-form';

interface ShortListProps<T> {
  title: string;
  /** The full page, filtered to the client. */
  all: string;
  query: { isPending: boolean; error: unknown; data?: { data: T[]; meta: { total?: number | null } } | undefined };
  empty: string;
  row: (item: T) => ReactNode;
}

/** A few of the client's records of one kind, linking to the full list filtered to the client. */
function ShortList<T extends { id: string }>({ title, all, query, empty, row }: ShortListProps<T>) {
  const id = `list-${title.toLowerCase().replace(/\W+/g, '-')}`;
  const total = query.data?.meta.total;
  return (
    <section className="panel" aria-labelledby={id}>
      <div className="section-head">
        <h2 id={id}>{title}{typeof total === 'number' ? ` (${total})` : ''}</h2>
        <Link to={all}>See all</Link>
      </div>
      <ErrorDisplay error={query.error} />
      {query.isPending ? <Loading rows={2} /> : !query.data ? null : query.data.data.length === 0 ? <p className="muted">{empty}</p> : (
        <ul className="short-list">{query.data.data.map((x) => <li key={x.id}>{row(x)}</li>)}</ul>
      )}
    </section>
  );
}

function Detail({ client: c }: { client: Client }) {
  const canWrite = useCan('clients:write');
  const update = useUpdateClient(c.id);
  const remove = useDeleteClient(c.id);
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const alerts = useAlerts(openAlertsOf(c.id));
  const incidents = useClientIncidents(c.id);
  const integrations = useClientIntegrations(c.id);
  const windows = useClientWindows(c.id);
  const filter = `clientId=${encodeURIComponent(c.id)}`;
  return (
    <Page
      title={c.name}
      actions={(
        <>
          <Link className="button secondary" to="/clients">All clients</Link>
          <Link className="button secondary" to={`/clients/${c.id}/report`}>Report</Link>
          {canWrite && !editing && <button type="button" className="secondary" onClick={() => setEditing(true)}>Edit</button>}
          {canWrite && <button type="button" className="danger" onClick={() => setConfirming(true)}>Delete</button>}
        </>
      )}
    >
      <ErrorDisplay error={remove.error} />
      {editing ? (
        <ClientForm title="Edit client" initial={c} submitLabel="Save client" busy={update.isPending} error={update.error} onCancel={() => setEditing(false)}
          onSubmit={(body) => update.mutate(body, { onSuccess: () => setEditing(false) })} />
      ) : (
        <dl className="pairs panel">
          <div><dt>Slug</dt><dd><code>{c.slug}</code></dd></div>
          <div><dt>Contact email</dt><dd>{c.contactEmail ?? '—'}</dd></div>
          <div><dt>Notes</dt><dd>{c.notes ?? '—'}</dd></div>
          <div><dt>Monthly report to</dt><dd>{c.reportRecipients.length ? c.reportRecipients.join(', ') : '—'}</dd></div>
          <div><dt>Created</dt><dd>{formatTime(c.createdAt)}</dd></div>
        </dl>
      )}
      <div className="grid-2">
        <ShortList title="Open alerts" all={`/alerts?${filter}`} query={alerts} empty="No open alerts."
          row={(a) => <><Link to={`/alerts/${a.id}`}>{a.title}</Link> <SeverityBadge value={a.severity} /> <StatusBadge value={a.status} /></>} />
        <ShortList title="Open incidents" all={`/incidents?${filter}`} query={incidents} empty="No open incidents."
          row={(i) => <><Link to={`/incidents/${i.id}`}>#{i.number} {i.title}</Link> <StatusBadge value={i.status} /></>} />
        <ShortList title="Integrations" all={`/integrations?${filter}`} query={integrations} empty="No integration is linked to this client."
          row={(i) => <><Link to={`/integrations/${i.id}`}>{i.name}</Link> <span className="muted">{i.enabled ? 'enabled' : 'disabled'}</span></>} />
        <ShortList title="Suppression windows" all={`/suppression?${filter}`} query={windows} empty="No suppression window is scoped to this client."
          row={(w) => <><Link to={`/suppression/${w.id}`}>{w.name}</Link> <span className="muted">{formatTime(w.startsAt)} – {formatTime(w.endsAt)}</span></>} />
      </div>
      <ConfirmDialog open={confirming} title={`Delete ${c.name}?`} confirmLabel="Delete client" danger busy={remove.isPending}
        onCancel={() => setConfirming(false)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate('/clients'), onSettled: () => setConfirming(false) })}>
        <p>Its alerts and integrations are kept and no longer belong to a client. A client with suppression windows cannot be deleted until they are removed or re-scoped.</p>
      </ConfirmDialog>
    </Page>
  );
}

export default function ClientPage() {
  const { id = '' } = useParams();
  const q = useClient(id);
  if (q.isPending) return <Page title="Client"><Loading rows={6} /></Page>;
  if (q.error) {
    return (
      <Page title="Client">
        <RecordError error={q.error} missing={<EmptyState title="This client does not exist"><p>Go back to <Link to="/clients">the clients</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  return <Detail client={q.data.data} />;
}
