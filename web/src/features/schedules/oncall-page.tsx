import { Link } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { viewerZone } from '../../components/zone';
import { useCan } from '../auth/session';
import { useOnCall } from './schedules-api';
import { TableWrap } from '../../components/table-wrap';

/** Who is on call now in every schedule, and since and until when (in the viewer's time). */
export default function OnCallPage() {
  const list = useOnCall();
  const canWrite = useCan('schedules:write');
  const rows = list.data?.data ?? [];
  return (
    <Page title="On call" actions={canWrite ? <Link className="button" to="/oncall/new">New schedule</Link> : undefined}>
      <ErrorDisplay error={list.error} />
      {list.isPending ? <Loading /> : rows.length === 0 ? (
        <EmptyState title="No schedules yet">
          <p>A schedule says who is on call when: rotations of people, restrictions and overrides.
            {canWrite ? ' Choose “New schedule” to create one.' : ' Ask an admin to create one.'}</p>
        </EmptyState>
      ) : (
        <>
          <p className="hint">Since and until on your clock, {viewerZone()}; a schedule's page shows its own zone.</p>
          <TableWrap label="Schedules">
            <table data-testid="oncall-table">
              <thead>
                <tr><th scope="col">Schedule</th><th scope="col">On call now</th><th scope="col">Since</th><th scope="col">Until</th></tr>
              </thead>
              <tbody>
                {rows.map((e) => (
                  <tr key={e.scheduleId}>
                    <td><Link to={`/oncall/${e.scheduleId}`}>{e.scheduleName}</Link></td>
                    <td>{e.user ? e.user.name : <span className="muted">Nobody</span>}</td>
                    <td>{formatTime(e.startsAt)}</td>
                    <td>{formatTime(e.endsAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
      {list.data?.meta.hasMore && <p className="muted">Showing the 100 newest schedules.</p>}
    </Page>
  );
}
