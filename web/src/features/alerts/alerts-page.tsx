import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { AlertListItem } from '../../api/types';
import { FlappingBadge, SeverityBadge, StatusBadge } from '../../components/badges';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { FilterFold } from '../../components/filter-fold';
import { SelectField, TextField } from '../../components/form';
import { formatAge, formatTime, plural } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { Pager, useCursorPages } from '../../components/pager';
import { useNarrow } from '../../components/use-narrow';
import { useCan } from '../auth/session';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { alertQueryOf, filterOf, useAlerts, useBulkAction, useByFilter, useFilterChoices, type AlertAction, type AlertFilter } from './alerts-api';
import { TableWrap } from '../../components/table-wrap';

const STATUS_CHOICES = [
  { value: 'firing,acknowledged', label: 'Open (firing or acknowledged)' },
  { value: 'firing', label: 'Firing' },
  { value: 'acknowledged', label: 'Acknowledged' },
  { value: 'suppressed', label: 'Suppressed' },
  { value: 'resolved', label: 'Resolved' },
  { value: '', label: 'Any status' },
];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];
const FILTERS = ['status', 'severity', 'integrationId', 'clientId', 'flapping', 'label', 'q'] as const;
const OPEN = 'firing,acknowledged';

/** How many filters differ from the default list (open alerts). */
const activeFilters = (p: URLSearchParams) => FILTERS.filter((k) => (k === 'status' ? (p.get(k) ?? OPEN) !== OPEN : Boolean(p.get(k)))).length;

function Filters({ params, onApply }: { params: URLSearchParams; onApply: (next: URLSearchParams) => void }) {
  const { integrations, clients } = useFilterChoices();
  const submit = (e: FormEvent<HTMLFormElement>, fold: () => void) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of FILTERS) {
      const v = String(form.get(k) ?? '').trim();
      if (v || k === 'status') next.set(k, v);
    }
    fold();
    onApply(next);
  };
  return (
    <FilterFold active={activeFilters(params)}>
      {(fold) => (
    <form className="filters" onSubmit={(e) => submit(e, fold)} role="search" aria-label="Filter alerts" key={params.toString()}>
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
      <SelectField label="Flapping" name="flapping" defaultValue={params.get('flapping') ?? ''}>
        <option value="">Flapping or not</option>
        <option value="true">Flapping only</option>
        <option value="false">Not flapping</option>
      </SelectField>
      <TextField label="Labels" name="label" placeholder="env=prod team=web" defaultValue={params.get('label') ?? ''}
        hint="key=value, separated by spaces; all must match" />
      <div className="filter-actions"><button type="submit">Apply filters</button></div>
    </form>
      )}
    </FilterFold>
  );
}

/** The next step of an alert's life: Acknowledge while firing or suppressed, Resolve while acknowledged. */
function PrimaryAction({ alert: a }: { alert: AlertListItem }) {
  const action = useBulkAction();
  if (a.status === 'resolved') return null;
  const ack = a.status !== 'acknowledged';
  return (
    <div className="row-actions">
      <button type="button" disabled={action.isPending} aria-label={`${ack ? 'Acknowledge' : 'Resolve'} ${a.title}`}
        onClick={() => action.mutate({ action: ack ? 'acknowledge' : 'resolve', ids: [a.id] })}>{ack ? 'Acknowledge' : 'Resolve'}</button>
      <ErrorDisplay error={action.error} />
    </div>
  );
}

const VERB: Record<AlertAction, { verb: string; done: string }> = {
  acknowledge: { verb: 'Acknowledge', done: 'Acknowledged' },
  resolve: { verb: 'Resolve', done: 'Resolved' },
};

/**
 * "Acknowledge/resolve all matching": the server counts what the filters select (every page, not only this one),
 * the person confirms that number, and the server acts on no more than it (docs/api.md, alerts).
 */
function AllMatching({ filter }: { filter: AlertFilter }) {
  const { count, confirm } = useByFilter();
  const [asked, setAsked] = useState<AlertAction | null>(null);
  const counted = asked !== null ? count.data?.data : undefined;
  const ask = (action: AlertAction) => {
    confirm.reset();
    setAsked(action);
    count.mutate({ action, filter });
  };
  const close = () => { setAsked(null); count.reset(); };
  const act = () => {
    if (!asked || !counted) return;
    confirm.mutate({ action: asked, filter, matching: counted.matching, asOf: counted.asOf }, { onSettled: close });
  };
  const take = counted ? Math.min(counted.matching, counted.cap) : 0;
  const done = confirm.data?.data;
  const doneVerb = confirm.variables ? VERB[confirm.variables.action].done : '';
  return (
    <>
      <button type="button" className="secondary" disabled={count.isPending} onClick={() => ask('acknowledge')}>Acknowledge all matching…</button>
      <button type="button" className="secondary" disabled={count.isPending} onClick={() => ask('resolve')}>Resolve all matching…</button>
      {done && (
        <span role="status">
          {doneVerb} {plural(done.changed, 'alert')}.
          {done.unchanged > 0 && ` ${plural(done.unchanged, 'alert')} had already changed.`}
          {done.remaining > 0 && ` ${plural(done.remaining, 'more alert')} match: ask again for the rest.`}
        </span>
      )}
      <ErrorDisplay error={count.error ?? confirm.error} />
      {asked && counted && (
        <ConfirmDialog open title={`${VERB[asked].verb} all matching alerts?`} busy={confirm.isPending || take === 0}
          confirmLabel={take === 0 ? VERB[asked].verb : `${VERB[asked].verb} ${plural(take, 'alert')}`} onConfirm={act} onCancel={close}>
          {take === 0
            ? <p>No alert matching these filters can be {asked === 'resolve' ? 'resolved' : 'acknowledged'}.</p>
            : <p>{plural(counted.matching, 'alert')} matching these filters, on every page, can be {asked === 'resolve' ? 'resolved' : 'acknowledged'}; their incidents follow.</p>}
          {counted.matching > counted.cap && <p>At most {counted.cap.toLocaleString()} change at a time: the newest now, the rest when you ask again.</p>}
        </ConfirmDialog>
      )}
    </>
  );
}

/** A phone's alert: title, severity, status and age, its next action at the bottom where the thumb is. */
function Card({ alert: a, canWrite, selected, onToggle }: { alert: AlertListItem; canWrite: boolean; selected: boolean; onToggle: () => void }) {
  return (
    <li className="card-item">
      <div className="card-head">
        {canWrite && <input type="checkbox" aria-label={`Select ${a.title}`} checked={selected} onChange={onToggle} />}
        <Link className="clamp card-title" to={`/alerts/${a.id}`}>{a.title}</Link>
      </div>
      <div className="card-foot">
        <p className="meta-line">
          <SeverityBadge value={a.severity} /> <StatusBadge value={a.status} />{a.flapping && <> <FlappingBadge /></>}
          <span className="muted"><time dateTime={a.lastSeenAt} title={formatTime(a.lastSeenAt)}>{formatAge(a.lastSeenAt)}</time></span>
          {a.occurrences > 1 && <span className="muted">seen {plural(a.occurrences, 'time')}</span>}
        </p>
        {canWrite && <PrimaryAction alert={a} />}
      </div>
    </li>
  );
}

export default function AlertsPage() {
  const [params, setParams] = useSearchParams();
  const pages = useCursorPages();
  const narrow = useNarrow();
  const [selection, setSelection] = useState<{ of: string; ids: Set<string> }>({ of: '', ids: new Set() });
  // A selection belongs to the page it was made on: another page or filter starts with none.
  const selected = selection.of === params.toString() ? selection.ids : new Set<string>();
  const setSelected = (ids: Set<string>) => setSelection({ of: params.toString(), ids });
  const canWrite = useCan('alerts:write');
  const list = useAlerts(alertQueryOf(params));
  const bulk = useBulkAction();
  const rows = list.data?.data ?? [];

  const apply = (next: URLSearchParams) => setParams(pages.firstPage(next));
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
  const total = list.data?.meta.total;

  const filtered = activeFilters(params) > 0;
  return (
    <Page title="Alerts">
      <Filters params={params} onApply={apply} />
      {canWrite && rows.length > 0 && (
        <div className="toolbar" aria-live="polite">
          <label className="check"><input type="checkbox" checked={allChecked} onChange={toggleAll} /> Select all on this page</label>
          <span>{selected.size} selected</span>
          {/* On a phone the bulk buttons take room only once something is selected. */}
          {(!narrow || selected.size > 0) && (
            <>
              <button type="button" disabled={selected.size === 0 || bulk.isPending} onClick={() => act('acknowledge')}>Acknowledge selected</button>
              <button type="button" disabled={selected.size === 0 || bulk.isPending} onClick={() => act('resolve')}>Resolve selected</button>
            </>
          )}
          {refused > 0 && <span role="status">{plural(refused, 'alert')} could not change (already resolved, or gone).</span>}
          {(!narrow || selected.size === 0) && <AllMatching filter={filterOf(alertQueryOf(params))} />}
        </div>
      )}
      <ErrorDisplay error={bulk.error ?? list.error} />
      {total !== undefined && rows.length > 0 && <p className="muted list-count">{plural(total, 'alert')}</p>}
      {list.isPending ? <Loading rows={8} /> : rows.length === 0 ? (
        <EmptyState title={filtered ? 'No alert matches these filters' : 'No open alerts'}>
          {filtered
            ? <p>Change or clear the filters.</p>
            : <p>Nothing is firing. To receive alerts, <Link to="/integrations">create an integration</Link> and point your monitoring tool at its ingest URL.</p>}
        </EmptyState>
      ) : narrow ? (
        <ul className="cards" aria-label="Alerts">
          {rows.map((a) => <Card key={a.id} alert={a} canWrite={canWrite} selected={selected.has(a.id)} onToggle={() => toggle(a.id)} />)}
        </ul>
      ) : (
        <TableWrap label="Alerts">
          <table>
            <caption className="sr-only">Alerts{total !== undefined ? `, ${total} in all` : ''}</caption>
            <thead>
              <tr>
                {canWrite && <th scope="col"><span className="sr-only">Selected</span></th>}
                <th scope="col">Title</th>
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
                <th scope="col">Source</th>
                <th scope="col" className="num">Seen</th>
                <th scope="col">Last seen</th>
                {canWrite && <th scope="col"><span className="sr-only">Actions</span></th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.id}>
                  {canWrite && <td><input type="checkbox" aria-label={`Select ${a.title}`} checked={selected.has(a.id)} onChange={() => toggle(a.id)} /></td>}
                  <td className="title-cell"><Link className="clamp" to={`/alerts/${a.id}`}>{a.title}</Link></td>
                  <td><SeverityBadge value={a.severity} /></td>
                  <td><StatusBadge value={a.status} />{a.flapping && <> <FlappingBadge /></>}</td>
                  <td className="break">{a.source ?? '—'}</td>
                  <td className="num">{a.occurrences}</td>
                  <td><time dateTime={a.lastSeenAt} title={formatTime(a.lastSeenAt)}>{formatAge(a.lastSeenAt)}</time></td>
                  {canWrite && <td><PrimaryAction alert={a} /></td>}
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
