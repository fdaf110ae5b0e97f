import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Integration } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { CopyButton } from '../../components/copy-button';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay, RecordError } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { formatTime } from '../../components/format';
import { useClients } from '../../api/clients';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useDeleteIntegration, useIntegration, usePresets, useRejections, useRotateToken, useUpdateIntegration } from './integrations-api';
import { CodeBlock } from '../../components/code-block';
import { CompatibleApis } from './compatible-apis';

const STANDARD_SAMPLE = { title: 'Disk almost full', severity: 'high', source: 'db1' };

/** A command that posts `sample` (the preset's own payload, so it passes that preset's checks); single quotes escaped for the shell. */
function curlExample(url: string, sample: unknown): string {
  const body = JSON.stringify(sample).replace(/'/g, `'\\''`);
  return `curl -X POST -H 'Content-Type: application/json' \\\n  -d '${body}' \\\n  '${url}'`;
}

function Rejections({ id }: { id: string }) {
  const list = useRejections(id);
  if (list.isPending) return <Loading rows={2} />;
  if (list.error) return <ErrorDisplay error={list.error} />;
  if (list.data.data.length === 0) return <p className="muted">No payload was refused recently.</p>;
  return (
    <ul className="rejections">
      {list.data.data.map((r) => (
        <li key={r.id}>
          <p><strong>{r.status} {r.code}</strong> · {formatTime(r.createdAt)}: {r.error}</p>
          {r.details && r.details.length > 0 && (
            <ul>{r.details.map((d) => <li key={`${d.path}${d.message}`}><code>{d.path}</code> {d.message}</li>)}</ul>
          )}
          {r.payload && <details><summary>Payload</summary><CodeBlock label="Rejected payload" text={r.payload} /></details>}
        </li>
      ))}
    </ul>
  );
}

type Confirm = 'rotate' | 'delete' | null;

/** The integration's name and client, edited in place. */
function EditForm({ integration: i, onDone }: { integration: Integration; onDone: () => void }) {
  const clients = useClients();
  const update = useUpdateIntegration(i.id);
  const [name, setName] = useState(i.name);
  const [clientId, setClientId] = useState(i.clientId ?? '');
  // The flap rule in the units people think in: changes, minutes.
  const [threshold, setThreshold] = useState(String(i.flapping.threshold));
  const [windowMinutes, setWindowMinutes] = useState(String(i.flapping.windowSeconds / 60));
  const [stableMinutes, setStableMinutes] = useState(String(i.flapping.stableSeconds / 60));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const flapping = { threshold: Number(threshold), windowSeconds: Math.round(Number(windowMinutes) * 60), stableSeconds: Math.round(Number(stableMinutes) * 60) };
    update.mutate({ name, clientId: clientId || null, flapping }, { onSuccess: onDone });
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="edit-integration">
      <h2 id="edit-integration">Edit integration</h2>
      <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors(update.error, 'name')} />
      <SelectField label="Client" value={clientId} onChange={(e) => setClientId(e.target.value)} errors={fieldErrors(update.error, 'clientId')}
        hint="Its alerts belong to this client unless their labels.client names another.">
        <option value="">No client</option>
        {(clients.data?.data ?? []).map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
      </SelectField>
      <fieldset>
        <legend>Flapping</legend>
        <p className="hint">An alert that fires and resolves this often flaps: its changes stop paging, and whoever was paged gets one notice.</p>
        <TextField label="Changes" type="number" min={2} max={100} value={threshold} onChange={(e) => setThreshold(e.target.value)} errors={fieldErrors(update.error, 'flapping/threshold')} />
        <TextField label="Within (minutes)" type="number" min={1} max={1440} value={windowMinutes} onChange={(e) => setWindowMinutes(e.target.value)} errors={fieldErrors(update.error, 'flapping/windowSeconds')} />
        <TextField label="Stable after (minutes)" type="number" min={1} max={1440} value={stableMinutes} onChange={(e) => setStableMinutes(e.target.value)} errors={fieldErrors(update.error, 'flapping/stableSeconds')} />
      </fieldset>
      <ErrorDisplay error={update.error} fields={['name', 'clientId', 'flapping/threshold', 'flapping/windowSeconds', 'flapping/stableSeconds']} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onDone}>Cancel</button>
        <button type="submit" disabled={update.isPending}>Save integration</button>
      </div>
    </form>
  );
}

function Detail({ integration: i }: { integration: Integration }) {
  const canWrite = useCan('integrations:write');
  const update = useUpdateIntegration(i.id);
  const rotate = useRotateToken(i.id);
  const remove = useDeleteIntegration(i.id);
  const navigate = useNavigate();
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [editing, setEditing] = useState(false);
  const client = useClients().data?.data.find((c) => c.id === i.clientId);
  const presets = usePresets();
  const sample = i.preset === 'standard' ? STANDARD_SAMPLE : (presets.data?.data.find((p) => p.name === i.preset)?.sample ?? STANDARD_SAMPLE);
  const curl = curlExample(i.ingestUrl, sample);
  return (
    <Page
      title={i.name}
      actions={canWrite ? (
        <>
          {!editing && <button type="button" className="secondary" onClick={() => setEditing(true)}>Edit</button>}
          <Link className="button secondary" to={`/integrations/${i.id}/mapping`}>Edit field mappings</Link>
          <button type="button" className="secondary" disabled={update.isPending} onClick={() => update.mutate({ enabled: !i.enabled })}>
            {i.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" className="secondary" onClick={() => setConfirm('rotate')}>Rotate token</button>
          <button type="button" className="danger" onClick={() => setConfirm('delete')}>Delete</button>
        </>
      ) : undefined}
    >
      <ErrorDisplay error={update.error ?? rotate.error ?? remove.error} />
      {editing && <EditForm integration={i} onDone={() => setEditing(false)} />}
      <dl className="pairs panel">
        <div><dt>Client</dt><dd>{i.clientId ? <Link to={`/clients/${i.clientId}`}>{client?.name ?? i.clientId}</Link> : 'No client'}</dd></div>
        <div><dt>Status</dt><dd>{i.enabled ? 'Enabled: alerts are accepted' : 'Disabled: posts are refused'}</dd></div>
        <div><dt>Preset</dt><dd>{i.preset}{i.mapping ? ' (with a custom mapping)' : ''}</dd></div>
        <div><dt>Flapping</dt><dd>{i.flapping.threshold} changes within {i.flapping.windowSeconds / 60} min; stable after {i.flapping.stableSeconds / 60} min</dd></div>
        <div><dt>Last alert</dt><dd>{formatTime(i.lastAlertAt)}</dd></div>
        <div><dt>Payloads accepted / rejected</dt><dd>{i.acceptedCount} / {i.rejectedCount} (one payload may carry many alerts)</dd></div>
      </dl>
      <section className="panel">
        <h2>Ingest URL</h2>
        <p>Your monitoring tool posts alerts here. The URL is the credential: keep it secret.</p>
        <div className="copy-row">
          <code className="break" data-testid="ingest-url">{i.ingestUrl}</code>
          <CopyButton text={i.ingestUrl} label="Copy URL" />
        </div>
        <h3>Try it</h3>
        <CodeBlock label="curl example" text={curl} />
        <CopyButton text={curl} label="Copy curl example" />
      </section>
      <CompatibleApis integration={i} canWrite={canWrite} />
      <section className="panel">
        <h2>Recent rejections</h2>
        <Rejections id={i.id} />
      </section>
      <ConfirmDialog open={confirm === 'rotate'} title="Rotate the ingest token and keys?" confirmLabel="Rotate token" danger busy={rotate.isPending}
        onCancel={() => setConfirm(null)} onConfirm={() => rotate.mutate(undefined, { onSettled: () => setConfirm(null) })}>
        <p>The current ingest URL, routing key and GenieKey stop working at once. Every tool that uses them must be given the new ones.</p>
      </ConfirmDialog>
      <ConfirmDialog open={confirm === 'delete'} title={`Delete ${i.name}?`} confirmLabel="Delete integration" danger busy={remove.isPending}
        onCancel={() => setConfirm(null)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate('/integrations'), onSettled: () => setConfirm(null) })}>
        <p>Its ingest URL stops working. Alerts it already delivered are kept.</p>
      </ConfirmDialog>
    </Page>
  );
}

export default function IntegrationPage() {
  const { id = '' } = useParams();
  const q = useIntegration(id);
  if (q.isPending) return <Page title="Integration"><Loading rows={6} /></Page>;
  if (q.error) {
    return (
      <Page title="Integration">
        <RecordError error={q.error} missing={<EmptyState title="This integration does not exist"><p>Go back to <Link to="/integrations">the integrations</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  return <Detail integration={q.data.data} />;
}
