import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { SelectField, TextField } from '../../components/form';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { alertQueryOf, useAlerts, useBulkAction, useFilterChoices, type AlertAction } from './alerts-api';

const STATUS_CHOICES = [
  { value: 'firing,acknowledged', label: 'Open (firing or acknowledged)' },
  { value: 'firing', label: 'Firing' },
  { value: 'acknowledged', label: 'Acknowledged' },
  { value: 'suppressed', label: 'Suppressed' },
  { value: 'resolved', label: 'Resolved' },
  { value: '', label: 'Any status' },
];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];
const FILTERS = ['status', 'severity', 'integrationId', 'clientId', 'label', 'q'] as const;
function Filters({ params, onApply }: { params: URLSearchParams; onApply: (next: URLSearchParams) => void }) {
  const { integrations, clients } = useFilterChoices();
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of FILTERS) {
      const v = String(form.get(k) ?? '').trim();
      if (v || k === 'status') next.set(k, v);
    }
    onApply(next);
  };
  return (
    <form className="filters" onSubmit={submit} role="search" key={params.toString()}>
      <TextField label="Search titles" name="q" type="search" defaultValue={params.get('q') ?? ''} />
      <SelectField label="Status" name="status" defaultValue={params.get('status') ?? 'firing,acknowledged'}>
        {STATUS_CHOICES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
      </SelectField>
      <SelectField label="Severity" name="severity" defaultValue={params.get('severity') ?? ''}>
        <option value="">Any severity</option>
        {SEVERITIES.map((s) => <option key={s} value={s}>{s}</option>)}
      </SelectField>
      <SelectField label="Integration" name="integrationId" defaultValue={params.get('integrationId') ?? ''}>
        <option value="">Any integration</option>
        {integrations.map((i) => <option key={i.id} value={i.id}>{i.name}</option>)}
      </SelectField>
      <SelectField label="Client" name="clientId" defaultValue={params.get('clientId') ?? ''}>
        <option value="">Any client</option>
        {clients.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
      </SelectField>
      <TextField label="Labels" name="label" placeholder="env=prod team=web" defaultValue={params.get('label') ?? ''}
        hint="key=value, separated by spaces; all must match" />
      <div className="filter-actions"><button type="submit">Apply filters</button></div>
    </form>
  );
}

export default function AlertsPage() {
  const [params, setParams] = useSearchParams();
  const [cursors, setCursors] = useState<string[]>([]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const canWrite = useCan('alerts:write');
  const list = useAlerts(alertQueryOf(params, cursors.at(-1)));
  const bulk = useBulkAction();
  const rows = list.data?.data ?? [];

  const apply = (next: URLSearchParams) => {
    setCursors([]);
    setSelected(new Set());
    setParams(next);
  };
  const toggle = (id: string) => {
    const s = new Set(selected);
    if (s.has(id)) s.delete(id);
    else s.add(id);
    setSelected(s);
  };
  const allChecked = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const toggleAll = () => setSelected(allChecked ? new Set() : new Set(rows.map((r) => r.id)));
  const act = (action: AlertAction) => bulk.mutate({ action, ids: [...selected] }, { onSuccess: () => setSelected(new Set()) });
  // The bulk answer is per alert: say how many could not change (e.g. acknowledging one already resolved).
  const refused = bulk.data?.data.results.filter((r) => !r.ok).length ?? 0;

  const filtered = FILTERS.some((k) => k !== 'status' && params.get(k));
  return (
    <Page title="Alerts">
      <Filters params={params} onApply={apply} />
      {canWrite && (
        <div className="toolbar" aria-live="polite">
          <span>{selected.size} selected</span>
          <button type="button" disabled={selected.size === 0 || bulk.isPending} onClick={() => act('acknowledge')}>Acknowledge</button>
          <button type="button" disabled={selected.size === 0 || bulk.isPending} onClick={() => act('resolve')}>Resolve</button>
          {refused > 0 && <span role="status">{refused} alert{refused === 1 ? '' : 's'} could not change (already resolved, or gone).</span>}
        </div>
      )}
      <ErrorDisplay error={bulk.error ?? list.error} />
      {list.isPending ? <Loading rows={8} /> : rows.length === 0 ? (
        <EmptyState title={filtered ? 'No alert matches these filters' : 'No open alerts'}>
          {filtered
            ? <p>Change or clear the filters above.</p>
            : <p>Nothing is firing. To receive alerts, <Link to="/integrations">create an integration</Link> and point your monitoring tool at its ingest URL.</p>}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Alerts{list.data?.meta.total !== undefined ? `, ${list.data.meta.total} in all` : ''}</caption>
            <thead>
              <tr>
                {canWrite && <th scope="col"><input type="checkbox" aria-label="Select all on this page" checked={allChecked} onChange={toggleAll} /></th>}
                <th scope="col">Title</th>
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
                <th scope="col" className="wide-only">Source</th>
                <th scope="col" className="num wide-only">Seen</th>
                <th scope="col" className="wide-only">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.id}>
                  {canWrite && <td><input type="checkbox" aria-label={`Select ${a.title}`} checked={selected.has(a.id)} onChange={() => toggle(a.id)} /></td>}
                  <td className="title-cell"><Link to={`/alerts/${a.id}`}>{a.title}</Link></td>
                  <td><SeverityBadge value={a.severity} /></td>
                  <td><StatusBadge value={a.status} /></td>
                  <td className="wide-only">{a.source ?? '—'}</td>
                  <td className="num wide-only">{a.occurrences}</td>
                  <td className="wide-only">{formatTime(a.lastSeenAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="pager">
        <button type="button" className="secondary" disabled={cursors.length === 0} onClick={() => { setCursors(cursors.slice(0, -1)); setSelected(new Set()); }}>
          Previous page
        </button>
        <button type="button" className="secondary" disabled={!list.data?.meta.hasMore}
          onClick={() => { setCursors([...cursors, list.data?.meta.nextCursor as string]); setSelected(new Set()); }}>
          Next page
        </button>
      </div>
    </Page>
  );
}
