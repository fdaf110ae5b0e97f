import { Link } from 'react-router';
import { SeverityBadge } from '../../components/badges';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useClientBoard } from './analytics-api';

type Tile = NonNullable<ReturnType<typeof useClientBoard>['data']>['data']['clients'][number];

/** Seven days of alerts as bars: an SVG drawn with attributes only (the page's CSP allows no style attributes). */
function Trend({ values, name }: { values: number[]; name: string }) {
  const max = Math.max(1, ...values);
  const words = `Alerts per day over the last 7 days for ${name}: ${values.join(', ')} (today last)`;
  return (
    <svg className="trend" viewBox="0 0 70 24" width="70" height="24" role="img" aria-label={words}>
      {values.map((v, i) => {
        const h = v === 0 ? 1 : Math.max(2, Math.round((v / max) * 22));
        return <rect key={i} x={i * 10 + 1} y={24 - h} width="8" height={h} className={v === 0 ? 'trend-zero' : 'trend-bar'} />;
      })}
    </svg>
  );
}

function tone(t: Tile): string {
  if (t.maintenance) return 'tile-maintenance';
  if (t.openCritical > 0) return 'tile-critical';
  if (t.openIncidents > 0 || t.openHigh > 0) return 'tile-warning';
  return 'tile-calm';
}

function ClientTile({ t }: { t: Tile }) {
  const headId = `tile-${t.clientId}`;
  return (
    <li className={`tile ${tone(t)}`} aria-labelledby={headId}>
      <h2 id={headId}><Link to={`/clients/${t.clientId}`}>{t.name}</Link></h2>
      {t.maintenance && <p className="badge">In maintenance until {formatTime(t.maintenance.endsAt)}<span className="sr-only">: {t.maintenance.name}</span></p>}
      <dl className="tile-counts">
        <div><dt>Critical</dt><dd>{t.openCritical}</dd></div>
        <div><dt>High</dt><dd>{t.openHigh}</dd></div>
        <div><dt>Incidents</dt><dd>{t.openIncidents}</dd></div>
      </dl>
      <p className="tile-last">
        {t.lastAlert ? <>Last alert {formatTime(t.lastAlert.createdAt)}: <Link to={`/alerts/${t.lastAlert.id}`}>{t.lastAlert.title}</Link> <SeverityBadge value={t.lastAlert.severity} /></> : <span className="muted">No alert yet.</span>}
      </p>
      <div className="tile-foot">
        <Trend values={t.trend} name={t.name} />
        <Link to={`/clients/${t.clientId}/report`}>Report</Link>
      </div>
    </li>
  );
}

/** Every client at a glance, the one that needs attention first; live (it refreshes as alerts and incidents change). */
export default function ClientBoardPage() {
  const board = useClientBoard();
  const clients = board.data?.data.clients ?? [];
  return (
    <Page title="Client board" actions={<Link className="button secondary" to="/analytics">Analytics</Link>}>
      <ErrorDisplay error={board.error} />
      {board.isPending ? <Loading /> : clients.length === 0 ? (
        <EmptyState title="No clients yet"><p>Add clients under <Link to="/clients">Clients</Link>: their alerts then show here, one tile each.</p></EmptyState>
      ) : (
        <>
          <p className="hint">Open alerts and incidents now, most urgent first. Critical alerts weigh most; a client in maintenance comes after the others.</p>
          <ul className="tiles">{clients.map((t) => <ClientTile key={t.clientId} t={t} />)}</ul>
        </>
      )}
    </Page>
  );
}
