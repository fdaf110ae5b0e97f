import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMembers } from '../../api/actors';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { SelectField } from '../../components/form';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { Pager, useCursorPages } from '../../components/pager';
import { useClients } from '../../api/clients';
import { incidentQueryOf, OPEN, useIncidents } from './incidents-api';

const STATUS_CHOICES = [
  { value: OPEN, label: 'Open (triggered or acknowledged)' },
  { value: 'triggered', label: 'Triggered' },
  { value: 'acknowledged', label: 'Acknowledged' },
  { value: 'resolved', label: 'Resolved' },
  { value: '', label: 'Any status' },
];
const FILTERS = ['status', 'assigneeId', 'clientId'] as const;

function Filters({ params, onApply }: { params: URLSearchParams; onApply: (next: URLSearchParams) => void }) {
  const members = useMembers().data?.data ?? [];
  const clients = useClients().data?.data ?? [];
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of FILTERS) {
      const v = String(form.get(k) ?? '');
      if (v || k === 'status') next.set(k, v);
    }
    onApply(next);
  };
  return (
    <form className="filters" onSubmit={submit} role="search" key={params.toString()}>
      <SelectField label="Status" name="status" defaultValue={params.get('status') ?? OPEN}>
        {STATUS_CHOICES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
      </SelectField>
      <SelectField label="Assignee" name="assigneeId" defaultValue={params.get('assigneeId') ?? ''}>
        <option value="">Anyone</option>
        {members.map((u) => <option key={u.id} value={u.id}>{u.name} ({u.email})</option>)}
      </SelectField>
      <SelectField label="Client" name="clientId" defaultValue={params.get('clientId') ?? ''}>
        <option value="">Any client</option>
        {clients.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
      </SelectField>
      <div className="filter-actions"><button type="submit">Apply filters</button></div>
    </form>
  );
}

export default function IncidentsPage() {
  const [params, setParams] = useSearchParams();
  const pages = useCursorPages();
  const list = useIncidents(incidentQueryOf(params, pages.cursor));
  const members = new Map((useMembers().data?.data ?? []).map((u) => [u.id, u.name]));
  const rows = list.data?.data ?? [];
  const apply = (next: URLSearchParams) => {
    pages.reset();
    setParams(next);
  };
  const filtered = params.get('assigneeId') || params.get('clientId') || (params.get('status') ?? OPEN) !== OPEN;
  return (
    <Page title="Incidents">
      <Filters params={params} onApply={apply} />
      <ErrorDisplay error={list.error} />
      {list.isPending ? <Loading rows={8} /> : rows.length === 0 ? (
        <EmptyState title={filtered ? 'No incident matches these filters' : 'No open incidents'}>
          {filtered
            ? <p>Change or clear the filters above.</p>
            : <p>All quiet. Incidents are opened by workflows with a <code>create_incident</code> action, grouping related alerts.</p>}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Incidents{list.data?.meta.total !== undefined ? `, ${list.data.meta.total} in all` : ''}</caption>
            <thead>
              <tr>
                <th scope="col" className="num">#</th>
                <th scope="col">Title</th>
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
                <th scope="col">Assignee</th>
                <th scope="col" className="num wide-only">Alerts</th>
                <th scope="col" className="wide-only">Opened</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((i) => (
                <tr key={i.id}>
                  <td className="num">{i.number}</td>
                  <td className="title-cell"><Link to={`/incidents/${i.id}`}>{i.title}</Link></td>
                  <td><SeverityBadge value={i.severity} /></td>
                  <td><StatusBadge value={i.status} /></td>
                  <td>{i.assigneeId ? (members.get(i.assigneeId) ?? i.assigneeId) : <span className="muted">Unassigned</span>}</td>
                  <td className="num wide-only">{i.alertCount}</td>
                  <td className="wide-only">{formatTime(i.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pages={pages} meta={list.data?.meta} />
    </Page>
  );
}
