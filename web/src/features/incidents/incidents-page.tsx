import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMembers } from '../../api/actors';
import { useClients } from '../../api/clients';
import type { IncidentListItem } from '../../api/types';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { FilterFold } from '../../components/filter-fold';
import { SelectField } from '../../components/form';
import { formatAge, formatTime, plural } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { Pager, useCursorPages } from '../../components/pager';
import { useNarrow } from '../../components/use-narrow';
import { useCan } from '../auth/session';
import { QuickActions } from './incident-quick-actions';
import { incidentQueryOf, OPEN, useIncidents } from './incidents-api';
import { TableWrap } from '../../components/table-wrap';

const STATUS_CHOICES = [
  { value: OPEN, label: 'Open (triggered or acknowledged)' },
  { value: 'triggered', label: 'Triggered' },
  { value: 'acknowledged', label: 'Acknowledged' },
  { value: 'resolved', label: 'Resolved' },
  { value: '', label: 'Any status' },
];
const FILTERS = ['status', 'assigneeId', 'clientId', 'mine'] as const;

/** How many filters differ from the default list (open incidents of anyone). */
const activeFilters = (p: URLSearchParams) => FILTERS.filter((k) => (k === 'status' ? (p.get(k) ?? OPEN) !== OPEN : Boolean(p.get(k)))).length;

function Filters({ params, onApply }: { params: URLSearchParams; onApply: (next: URLSearchParams) => void }) {
  const members = useMembers().data?.data ?? [];
  const clients = useClients().data?.data ?? [];
  const submit = (e: FormEvent<HTMLFormElement>, fold: () => void) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of FILTERS) {
      const v = String(form.get(k) ?? '');
      if (v || k === 'status') next.set(k, v);
    }
    fold();
    onApply(next);
  };
  return (
    <FilterFold active={activeFilters(params)}>
      {(fold) => (
        <form className="filters" onSubmit={(e) => submit(e, fold)} role="search" aria-label="Filter incidents" key={params.toString()}>
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
          <label className="check mine-check"><input type="checkbox" name="mine" value="true" defaultChecked={params.get('mine') === 'true'} /> Only mine (assigned to me or paged me)</label>
          <div className="filter-actions"><button type="submit">Apply filters</button></div>
        </form>
      )}
    </FilterFold>
  );
}

/** A phone's incident: title, severity, status, age and assignee, its next action at the bottom where the thumb is. */
function Card({ incident: i, assignee, canWrite }: { incident: IncidentListItem; assignee: string; canWrite: boolean }) {
  return (
    <li className="card-item">
      <Link className="clamp card-title" to={`/incidents/${i.id}`}>#{i.number} {i.title}</Link>
      <p className="meta-line">
        <SeverityBadge value={i.severity} /> <StatusBadge value={i.status} />
        <span className="muted"><time dateTime={i.createdAt} title={formatTime(i.createdAt)}>{formatAge(i.createdAt)}</time></span>
        <span className="muted">{plural(i.alertCount, 'alert')}</span>
      </p>
      <div className="card-foot">
        <p className="muted">{assignee}</p>
        {canWrite && <QuickActions incident={i} />}
      </div>
    </li>
  );
}

export default function IncidentsPage() {
  const [params, setParams] = useSearchParams();
  const pages = useCursorPages();
  const narrow = useNarrow();
  const canWrite = useCan('incidents:write');
  const list = useIncidents(incidentQueryOf(params));
  const members = new Map((useMembers().data?.data ?? []).map((u) => [u.id, u.name]));
  const rows = list.data?.data ?? [];
  const assignee = (i: IncidentListItem) => (i.assigneeId ? `Assigned to ${members.get(i.assigneeId) ?? i.assigneeId}` : 'Unassigned');
  const filtered = activeFilters(params) > 0;
  const total = list.data?.meta.total;
  return (
    <Page title="Incidents">
      <Filters params={params} onApply={(next) => setParams(pages.firstPage(next))} />
      <ErrorDisplay error={list.error} />
      {total !== undefined && rows.length > 0 && <p className="muted list-count">{plural(total, 'incident')}</p>}
      {list.isPending ? <Loading rows={8} /> : rows.length === 0 ? (
        <EmptyState title={filtered ? 'No incident matches these filters' : 'No open incidents'}>
          {filtered
            ? <p>Change or clear the filters.</p>
            : <p>All quiet. Incidents are opened by workflows with a <code>create_incident</code> action, grouping related alerts.</p>}
        </EmptyState>
      ) : narrow ? (
        <ul className="cards" aria-label="Incidents">
          {rows.map((i) => <Card key={i.id} incident={i} assignee={assignee(i)} canWrite={canWrite} />)}
        </ul>
      ) : (
        <TableWrap label="Incidents">
          <table>
            <caption className="sr-only">Incidents{total !== undefined ? `, ${total} in all` : ''}</caption>
            <thead>
              <tr>
                <th scope="col" className="num">#</th>
                <th scope="col">Title</th>
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
                <th scope="col">Assignee</th>
                <th scope="col" className="num">Alerts</th>
                <th scope="col">Opened</th>
                {canWrite && <th scope="col"><span className="sr-only">Actions</span></th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((i) => (
                <tr key={i.id}>
                  <td className="num">{i.number}</td>
                  <td className="title-cell"><Link className="clamp" to={`/incidents/${i.id}`}>{i.title}</Link></td>
                  <td><SeverityBadge value={i.severity} /></td>
                  <td><StatusBadge value={i.status} /></td>
                  <td>{i.assigneeId ? (members.get(i.assigneeId) ?? i.assigneeId) : <span className="muted">Unassigned</span>}</td>
                  <td className="num">{i.alertCount}</td>
                  <td><time dateTime={i.createdAt} title={formatTime(i.createdAt)}>{formatAge(i.createdAt)}</time></td>
                  {canWrite && <td><QuickActions incident={i} /></td>}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager pages={pages} meta={list.data?.meta} />
    </Page>
  );
}
