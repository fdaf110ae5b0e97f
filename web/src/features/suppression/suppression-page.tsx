import { Link } from 'react-router';
import type { SuppressionWindow } from '../../api/types';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { Loading, Page } from '../../components/page';
import { dateTimeIn } from '../../components/zone';
import { plural } from '../../components/format';
import { useCan } from '../auth/session';
import { useClients } from '../../api/clients';
import { useWindows } from './suppression-api';
import { recurrenceInWords } from './window-form';
import { TableWrap } from '../../components/table-wrap';
import { useNarrow } from '../../components/use-narrow';

function State({ w }: { w: SuppressionWindow }) {
  if (w.active) return <span className="badge status-firing">Active now</span>;
  if (w.nextOccurrences.length > 0) return <span className="badge status-acknowledged">Scheduled</span>;
  return <span className="badge status-suppressed">Over</span>;
}

/** A window's next three occurrences, in its own zone. */
function Occurrences({ w }: { w: SuppressionWindow }) {
  return (
    <>
      {w.nextOccurrences.length === 0 ? <span className="muted">None</span> : (
        <ul className="occurrences">
          {w.nextOccurrences.slice(0, 3).map((o) => <li key={o.startsAt}>{dateTimeIn(o.startsAt, w.timezone)} – {dateTimeIn(o.endsAt, w.timezone)}</li>)}
        </ul>
      )}
      <small className="muted">{w.timezone}</small>
    </>
  );
}

const repeats = (w: SuppressionWindow) => recurrenceInWords(w.recurrence) ?? <code className="break">{w.recurrence}</code>;

/** The organization's suppression windows: which are in force now, and when the others come next. */
export default function SuppressionPage() {
  const list = useWindows();
  const clients = useClients();
  const canWrite = useCan('suppression:write');
  const clientName = new Map((clients.data?.data ?? []).map((c) => [c.id, c.name]));
  const rows = list.data?.data ?? [];
  const narrow = useNarrow();
  const holds = (w: SuppressionWindow) =>
    `${w.clientId ? `${clientName.get(w.clientId) ?? w.clientId}: ` : ''}${w.matchers.length === 0 ? 'every alert' : plural(w.matchers.length, 'matcher')}`;
  return (
    <Page title="Suppression windows" actions={canWrite ? <Link className="button" to="/suppression/new">New window</Link> : undefined}>
      <p className="muted">While a window is in force, new alerts it holds are stored as suppressed: nobody is paged for them.</p>
      <ErrorDisplay error={list.error} />
      {list.isPending ? <Loading /> : rows.length === 0 ? (
        <EmptyState title="No suppression windows">
          <p>A window silences matching alerts during maintenance, once or on a schedule.
            {canWrite ? ' Choose “New window” to create one.' : ' Ask an admin to create one.'}</p>
        </EmptyState>
      ) : narrow ? (
        // On a phone, a card each: a table's five columns squeezed the dates to a word a line.
        <ul className="cards" aria-label="Suppression windows">
          {rows.map((w) => (
            <li key={w.id} className="card-item">
              <div className="card-head"><Link className="clamp card-title" to={`/suppression/${w.id}`}>{w.name}</Link> <State w={w} /></div>
              <p className="muted">{repeats(w)} · holds {holds(w)}</p>
              <div><Occurrences w={w} /></div>
            </li>
          ))}
        </ul>
      ) : (
        <TableWrap label="Suppression windows">
          <table data-testid="windows-table">
            <thead>
              <tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Next occurrences</th><th scope="col">Repeats</th><th scope="col">Holds</th></tr>
            </thead>
            <tbody>
              {rows.map((w) => (
                <tr key={w.id}>
                  <td className="title-cell"><Link to={`/suppression/${w.id}`}>{w.name}</Link></td>
                  <td><State w={w} /></td>
                  <td><Occurrences w={w} /></td>
                  <td>{repeats(w)}</td>
                  <td>{holds(w)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {list.data?.meta.hasMore && <p className="muted">Showing the 100 newest windows.</p>}
    </Page>
  );
}
