import { Link, useParams, useSearchParams } from 'react-router';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { downloadCsv, type Cell } from '../../components/csv';
import { EmptyState } from '../../components/empty-state';
import { RecordError } from '../../components/error-display';
import { formatDuration } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { dateTimeIn } from '../../components/zone';
import type { ClientReport } from '../../api/types';
import { useClientReport } from './clients-api';
import { TableWrap } from '../../components/table-wrap';

const dur = (ms: number | null) => (ms === null ? '—' : formatDuration(ms));
const monthWords = (period: string) => new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(new Date(`${period}-15T00:00:00Z`));
const serviceName = (s: string) => (s === '*' ? 'All services' : s === '' ? 'No service label' : s);

/** The report as one CSV: a section per block, the same figures as the page. */
function reportRows(r: ClientReport): Cell[][] {
  return [
    ['Client', r.client.name], ['Period', r.period], ['Time zone', r.timezone], [],
    ['Alerts', r.volume.alerts], ['Alerts the month before', r.volume.previousAlerts], ['Trend %', r.volume.trendPercent],
    ['Payloads', r.volume.occurrences], ['Resolved within a minute', r.volume.quickResolves], ['Pages', r.volume.pages], [],
    ['MTTA median ms', r.responseTimes.ack.median], ['MTTA p90 ms', r.responseTimes.ack.p90],
    ['MTTR median ms', r.responseTimes.resolve.median], ['MTTR p90 ms', r.responseTimes.resolve.p90], [],
    ['Day', 'Alerts'], ...r.volume.days.map((d) => [d.day, d.alerts]), [],
    ['Service', 'Availability %', 'Down ms'], ...r.availability.map((a) => [serviceName(a.service), a.percent, a.downMs]), [],
    ['Incident', 'Title', 'Severity', 'Opened', 'Resolved', 'Duration ms'],
    ...r.incidents.list.map((i) => [i.number, i.title, i.severity, i.openedAt, i.resolvedAt, i.durationMs]), [],
    ['Alert', 'Fingerprint', 'Occurrences', 'Pages'], ...r.noisyAlerts.map((a) => [a.title, a.fingerprint, a.counts.occurrences, a.counts.pages]), [],
    ['Maintenance window', 'From', 'To'], ...r.maintenance.map((m) => [m.name, m.startsAt, m.endsAt]),
  ];
}

function Report({ r }: { r: ClientReport }) {
  const zone = r.timezone;
  const max = Math.max(1, ...r.volume.days.map((d) => d.alerts));
  const trend = r.volume.trendPercent === null ? `none the month before` : `${r.volume.trendPercent > 0 ? '+' : ''}${r.volume.trendPercent} % against the month before (${r.volume.previousAlerts})`;
  return (
    <article className="report">
      <p className="muted">{monthWords(r.period)}, times in {zone}.</p>
      <section className="panel" aria-labelledby="r-summary">
        <h2 id="r-summary">Summary</h2>
        <dl className="stat-row">
          <div><dt>Alerts</dt><dd>{r.volume.alerts}</dd></div>
          <div><dt>Incidents</dt><dd>{r.incidents.total}</dd></div>
          <div><dt>MTTA (median)</dt><dd>{dur(r.responseTimes.ack.median)}</dd></div>
          <div><dt>MTTR (median)</dt><dd>{dur(r.responseTimes.resolve.median)}</dd></div>
        </dl>
        <p>Alerts: {trend}. Payloads {r.volume.occurrences}; resolved within a minute {r.volume.quickResolves}; pages {r.volume.pages}. 90 % of incidents were acknowledged within {dur(r.responseTimes.ack.p90)} and resolved within {dur(r.responseTimes.resolve.p90)}.</p>
        <svg className="report-days" viewBox={`0 0 ${r.volume.days.length * 10} 40`} preserveAspectRatio="none" role="img"
          aria-label={`Alerts per day: ${r.volume.days.map((d) => d.alerts).join(', ')}`}>
          {r.volume.days.map((d, i) => {
            const h = d.alerts === 0 ? 0.5 : Math.max(2, (d.alerts / max) * 38);
            return <rect key={d.day} x={i * 10 + 1} y={40 - h} width="8" height={h} className="trend-bar" />;
          })}
        </svg>
      </section>
      <section className="panel" aria-labelledby="r-availability">
        <h2 id="r-availability">Availability</h2>
        <p className="hint">Time without an open critical alert. Services not listed had no critical alert.</p>
        <TableWrap label="Availability"><table>
          <thead><tr><th scope="col">Service</th><th scope="col" className="num">Available</th><th scope="col" className="num">Down</th></tr></thead>
          <tbody>{r.availability.map((a) => <tr key={a.service}><td>{serviceName(a.service)}</td><td className="num">{a.percent} %</td><td className="num">{dur(a.downMs)}</td></tr>)}</tbody>
        </table></TableWrap>
      </section>
      <section className="panel" aria-labelledby="r-incidents">
        <h2 id="r-incidents">Incidents ({r.incidents.total})</h2>
        {r.incidents.list.length === 0 ? <p className="muted">No incident.</p> : (
          <TableWrap label="Incidents"><table>
            <thead><tr><th scope="col">#</th><th scope="col">Title</th><th scope="col">Severity</th><th scope="col">Opened</th><th scope="col" className="num">Duration</th></tr></thead>
            <tbody>{r.incidents.list.map((i) => (
              <tr key={i.id}>
                <td><Link to={`/incidents/${i.id}`}>#{i.number}</Link></td>
                <td className="title-cell">{i.title}</td>
                <td><SeverityBadge value={i.severity} /></td>
                <td>{dateTimeIn(i.openedAt, zone)}</td>
                <td className="num">{i.resolvedAt ? dur(i.durationMs) : <StatusBadge value={i.status} />}</td>
              </tr>
            ))}</tbody>
          </table></TableWrap>
        )}
      </section>
      <section className="panel" aria-labelledby="r-noisy">
        <h2 id="r-noisy">Noisiest alerts</h2>
        {r.noisyAlerts.length === 0 ? <p className="muted">No alert.</p> : (
          <TableWrap label="Noisiest alerts"><table>
            <thead><tr><th scope="col">Alert</th><th scope="col" className="num">Occurrences</th><th scope="col" className="num">Pages</th></tr></thead>
            <tbody>{r.noisyAlerts.map((a) => <tr key={`${a.integrationId}|${a.fingerprint}`}><td className="title-cell">{a.title}</td><td className="num">{a.counts.occurrences}</td><td className="num">{a.counts.pages}</td></tr>)}</tbody>
          </table></TableWrap>
        )}
      </section>
      <section className="panel" aria-labelledby="r-maintenance">
        <h2 id="r-maintenance">Maintenance windows</h2>
        {r.maintenance.length === 0 ? <p className="muted">None.</p> : (
          <ul>{r.maintenance.map((m) => <li key={`${m.windowId}|${m.startsAt}`}>{m.name}: {dateTimeIn(m.startsAt, zone)} – {dateTimeIn(m.endsAt, zone)}</li>)}</ul>
        )}
      </section>
    </article>
  );
}

/** A client's monthly report: printable (the print styles drop the navigation and controls), and as CSV. */
export default function ClientReportPage() {
  const { id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const period = params.get('period') ?? undefined;
  const q = useClientReport(id, period);
  const r = q.data?.data;
  const title = r ? `${r.client.name}: report` : 'Client report';
  return (
    <Page title={title} actions={r && (
      <>
        <label className="inline-field">Month <input type="month" value={r.period} max={new Date().toISOString().slice(0, 7)}
          onChange={(e) => e.target.value && setParams({ period: e.target.value }, { replace: true })} /></label>
        <button type="button" className="secondary" onClick={() => downloadCsv(`report-${r.client.slug}-${r.period}`, reportRows(r))}>Download CSV</button>
        <button type="button" onClick={() => window.print()}>Print</button>
      </>
    )}>
      {q.isPending ? <Loading rows={6} /> : q.error ? (
        <RecordError error={q.error} missing={<EmptyState title="This client does not exist"><p>Go back to <Link to="/clients">the clients</Link>.</p></EmptyState>} />
      ) : r ? <Report r={r} /> : null}
    </Page>
  );
}
