import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { PresetName } from '../../api/types';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useClients } from '../../api/clients';
import { useCreateIntegration, useIntegrations, usePresets } from './integrations-api';
import { TableWrap } from '../../components/table-wrap';

function CreateForm({ onCancel }: { onCancel: () => void }) {
  const presets = usePresets();
  const clients = useClients();
  const create = useCreateIntegration();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [preset, setPreset] = useState<PresetName>('standard');
  const [clientId, setClientId] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name, preset, ...(clientId && { clientId }) }, { onSuccess: (r) => navigate(`/integrations/${r.data.id}`) });
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="new-integration">
      <h2 id="new-integration">New integration</h2>
      <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors(create.error, 'name')}
        hint="What sends the alerts, e.g. “Prometheus production”." />
      <SelectField label="Preset" value={preset} onChange={(e) => setPreset(e.target.value as PresetName)} errors={fieldErrors(create.error, 'preset')}
        hint="How the sender's payload is read; you can adjust it later in Field mappings.">
        {(presets.data?.data ?? [{ name: 'standard', title: 'Standard' }]).map((p) => <option key={p.name} value={p.name}>{p.title}</option>)}
      </SelectField>
      <SelectField label="Client" value={clientId} onChange={(e) => setClientId(e.target.value)} errors={fieldErrors(create.error, 'clientId')}>
        <option value="">No client</option>
        {(clients.data?.data ?? []).map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
      </SelectField>
      <ErrorDisplay error={create.error} fields={['name', 'preset', 'clientId']} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" disabled={create.isPending}>Create integration</button>
      </div>
    </form>
  );
}

export default function IntegrationsPage() {
  const [params] = useSearchParams();
  const clientId = params.get('clientId');
  const list = useIntegrations(clientId);
  const clients = useClients();
  const client = clients.data?.data.find((c) => c.id === clientId);
  const canWrite = useCan('integrations:write');
  const [creating, setCreating] = useState(false);
  const rows = list.data?.data ?? [];
  return (
    <Page title="Integrations" actions={canWrite && !creating ? <button type="button" onClick={() => setCreating(true)}>New integration</button> : undefined}>
      {creating && <CreateForm onCancel={() => setCreating(false)} />}
      {clientId && (
        <p className="panel notice" role="status">
          Only the integrations of {client ? <Link to={`/clients/${clientId}`}>{client.name}</Link> : 'one client'}. <Link to="/integrations">Show all</Link>
        </p>
      )}
      <ErrorDisplay error={list.error} />
      {list.isPending ? <Loading /> : rows.length === 0 && clientId ? (
        <EmptyState title="No integrations for this client"><p>None of the integrations is linked to this client.</p></EmptyState>
      ) : rows.length === 0 ? (
        <EmptyState title="No integrations yet">
          <p>An integration gives your monitoring tool (Alertmanager, Grafana, Zabbix, …) an ingest URL to post alerts to.
            {canWrite ? ' Choose “New integration” to create one.' : ' Ask an admin to create one.'}</p>
        </EmptyState>
      ) : (
        <TableWrap label="Integrations">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th><th scope="col">Preset</th><th scope="col">Status</th>
                <th scope="col">Last alert</th><th scope="col" className="num">Payloads accepted</th><th scope="col" className="num">Payloads rejected</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((i) => (
                <tr key={i.id}>
                  <td><Link to={`/integrations/${i.id}`}>{i.name}</Link></td>
                  <td>{i.preset}</td>
                  <td>{i.enabled ? 'Enabled' : 'Disabled'}</td>
                  <td>{formatTime(i.lastAlertAt)}</td>
                  <td className="num">{i.acceptedCount}</td>
                  <td className="num">{i.rejectedCount}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Page>
  );
}
