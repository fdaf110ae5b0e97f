import { useMemo, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Chart } from '../../components/chart';
import { downloadCsv } from '../../components/csv';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { formatDuration } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { ZoneField } from '../../components/zone-field';
import { useCan } from '../auth/session';
import { useNoisy, useOrganization, usePagesPerPerson, useResponseTimes, useUpdateOrganization, useVolume, type NoisyBy, type SeriesParams } from './analytics-api';
import { bucketLabel, rangeQuery, RANGES, topSeries } from './analytics-fns';
import { TableWrap } from '../../components/table-wrap';

const minutes = (ms: number) => formatDuration(ms);

function Settings({ timezone, labels }: { timezone: string; labels: string[] }) {
  const update = useUpdateOrganization();
  const [zone, setZone] = useState(timezone);
  const [keys, setKeys] = useState(labels.join(', '));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ timezone: zone, analyticsLabels: keys.split(',').map((k) => k.trim()).filter(Boolean) });
  };
  return (
    <details className="panel">
      <summary>How figures are counted: time zone {timezone}, labels {labels.join(', ') || 'none'}</summary>
      <form onSubmit={submit} noValidate>
        <ZoneField value={zone} onChange={setZone} errors={fieldErrors(update.error, 'timezone')}
          hint="Days, weeks and months of the charts and client reports are this zone's. Days already counted keep their zone." />
        <TextField label="Labels to group by" value={keys} onChange={(e) => setKeys(e.target.value)} errors={fieldErrors(update.error, 'analyticsLabels')}
          hint="Up to 5 label keys, comma-separated (e.g. service, env), counted from when they are added." />
        <ErrorDisplay error={update.error} fields={['timezone', 'analyticsLabels']} />
        {update.isSuccess && <p role="status">Saved.</p>}
        <button type="submit" disabled={update.isPending}>Save</button>
      </form>
    </details>
  );
}

function VolumeCharts({ q, zone }: { q: SeriesParams; zone: string }) {
  const volume = useVolume(q);
  const charts = useMemo(() => {
    const v = volume.data?.data;
    if (!v) return null;
    const fmtX = (iso: string) => bucketLabel(iso, v.bucket, zone);
    // Every grouping covers every alert once, so the groups add up to the total per bucket.
    const sum = (m: 'incidents' | 'pages' | 'quickResolves' | 'flaps') => v.buckets.map((_, i) => v.groups.reduce((n, g) => n + (g.series[i]?.[m] ?? 0), 0));
    return {
      x: v.buckets, fmtX,
      alerts: topSeries(v.groups, v.groupBy, (g) => g.series.map((c) => c.alerts)),
      activity: [
        { label: 'Incidents opened', values: sum('incidents') },
        { label: 'Pages', values: sum('pages') },
        { label: 'Resolved within a minute', values: sum('quickResolves') },
        { label: 'Flaps', values: sum('flaps') },
      ],
      totals: v.totals,
    };
  }, [volume.data, zone]);
  if (volume.error) return <ErrorDisplay error={volume.error} />;
  if (!charts) return <Loading rows={4} />;
  return (
    <>
      <dl className="stat-row">
        <div><dt>Alerts</dt><dd>{charts.totals.alerts}</dd></div>
        <div><dt>Payloads</dt><dd>{charts.totals.occurrences}</dd></div>
        <div><dt>Incidents</dt><dd>{charts.totals.incidents}</dd></div>
        <div><dt>Pages</dt><dd>{charts.totals.pages}</dd></div>
      </dl>
      <Chart title="Alerts opened" x={charts.x} series={charts.alerts} xLabel="Period" formatX={charts.fmtX} file="alerts-opened" />
      <Chart title="Incidents, pages and noise" x={charts.x} series={charts.activity} xLabel="Period" formatX={charts.fmtX} file="incidents-pages" />
    </>
  );
}

function ResponseCharts({ q, zone }: { q: SeriesParams; zone: string }) {
  const { groupBy: _grouped, ...overall } = q;
  const times = useResponseTimes(overall);
  const charts = useMemo(() => {
    const r = times.data?.data;
    if (!r) return null;
    const series = r.groups[0]?.series ?? [];
    const line = (label: string, pick: (d: (typeof series)[number]) => number | null) => ({ label, values: series.map(pick) });
    return {
      x: r.buckets, fmtX: (iso: string) => bucketLabel(iso, r.bucket, zone), overall: r.overall,
      ack: [line('MTTA median', (d) => d.ack.median), line('MTTA p90', (d) => d.ack.p90), line('MTTR median', (d) => d.resolve.median), line('MTTR p90', (d) => d.resolve.p90)],
      page: [line('Median', (d) => d.page.median), line('p90', (d) => d.page.p90)],
    };
  }, [times.data, zone]);
  if (times.error) return <ErrorDisplay error={times.error} />;
  if (!charts) return <Loading rows={3} />;
  const { ack, resolve, page } = charts.overall;
  return (
    <>
      <dl className="stat-row">
        <div><dt>MTTA (median, p90)</dt><dd>{ack.median === null ? '—' : `${minutes(ack.median)}, ${minutes(ack.p90 as number)}`}</dd></div>
        <div><dt>MTTR (median, p90)</dt><dd>{resolve.median === null ? '—' : `${minutes(resolve.median)}, ${minutes(resolve.p90 as number)}`}</dd></div>
        <div><dt>Alert to first page (median)</dt><dd>{page.median === null ? '—' : minutes(page.median)}</dd></div>
      </dl>
      <Chart title="Time to acknowledge and to resolve" x={charts.x} series={charts.ack} format={minutes} xLabel="Incidents opened in" formatX={charts.fmtX} file="mtta-mttr" />
      <Chart title="Time from alert to first page" x={charts.x} series={charts.page} format={minutes} xLabel="Incidents opened in" formatX={charts.fmtX} file="time-to-page" />
    </>
  );
}

function People({ from, to }: { from: string; to: string }) {
  const pages = usePagesPerPerson({ from, to });
  const people = pages.data?.data.people ?? [];
  const rows = people.map((p) => [p.name ?? `Removed member (${p.userId})`, p.working, p.offHours, p.total] as const);
  return (
    <section className="panel" aria-labelledby="people-head">
      <div className="section-head">
        <h2 id="people-head">Pages per person</h2>
        <button type="button" className="secondary small" onClick={() => downloadCsv('pages-per-person', [['Person', 'Working hours', 'Nights and weekends', 'Total'], ...rows])}>Download CSV</button>
      </div>
      <p className="hint">Working hours: Monday to Friday, 09:00–18:00 on each person's clock (their time zone in their profile).</p>
      <ErrorDisplay error={pages.error} />
      {pages.isPending ? <Loading rows={2} /> : people.length === 0 ? <p className="muted">Nobody was paged in this range.</p> : (
        <TableWrap label="Pages per person">
          <table>
            <thead><tr><th scope="col">Person</th><th scope="col" className="num">Working hours</th><th scope="col" className="num">Nights and weekends</th><th scope="col" className="num">Total</th></tr></thead>
            <tbody>{rows.map(([name, w, o, t], i) => <tr key={people[i]?.userId}><td>{name}</td><td className="num">{w}</td><td className="num">{o}</td><td className="num">{t}</td></tr>)}</tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

const NOISY: Array<{ by: NoisyBy; label: string }> = [
  { by: 'occurrences', label: 'Most occurrences' },
  { by: 'pages', label: 'Most pages' },
  { by: 'flaps', label: 'Flapping' },
  { by: 'quickResolves', label: 'Resolved within a minute' },
];

function NoisyAlerts({ from, to }: { from: string; to: string }) {
  const [by, setBy] = useState<NoisyBy>('occurrences');
  const noisy = useNoisy({ from, to, by });
  const list = noisy.data?.data.alerts ?? [];
  const csv = () => downloadCsv(`noisy-alerts-${by}`, [
    ['Title', 'Fingerprint', 'Integration', 'Occurrences', 'Alerts', 'Pages', 'Flaps', 'Resolved within a minute'],
    ...list.map((a) => [a.title, a.fingerprint, a.integrationName, a.counts.occurrences, a.counts.alerts, a.counts.pages, a.counts.flaps, a.counts.quickResolves]),
  ]);
  return (
    <section className="panel" aria-labelledby="noisy-head">
      <div className="section-head">
        <h2 id="noisy-head">Top noisy alerts</h2>
        <button type="button" className="secondary small" onClick={csv}>Download CSV</button>
      </div>
      <div className="tabs" role="group" aria-label="Rank by">
        {NOISY.map((n) => <button key={n.by} type="button" className={n.by === by ? 'small' : 'secondary small'} aria-pressed={n.by === by} onClick={() => setBy(n.by)}>{n.label}</button>)}
      </div>
      <ErrorDisplay error={noisy.error} />
      {noisy.isPending ? <Loading rows={3} /> : list.length === 0 ? <p className="muted">None in this range.</p> : (
        <TableWrap label="Noisiest alerts">
          <table>
            <thead><tr><th scope="col">Alert</th><th scope="col" className="wide-only">Integration</th><th scope="col" className="num">Occurrences</th><th scope="col" className="num">Pages</th><th scope="col" className="num">Flaps</th></tr></thead>
            <tbody>
              {list.map((a) => (
                <tr key={`${a.integrationId}|${a.fingerprint}`}>
                  <td className="title-cell"><Link to={`/alerts?fingerprint=${encodeURIComponent(a.fingerprint)}`}>{a.title}</Link></td>
                  <td className="wide-only">{a.integrationName ?? '—'}</td>
                  <td className="num">{a.counts.occurrences}</td><td className="num">{a.counts.pages}</td><td className="num">{a.counts.flaps}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

export default function AnalyticsPage() {
  const [params, setParams] = useSearchParams();
  const org = useOrganization();
  const canSet = useCan('users:write');
  const rangeId = params.get('range');
  const groupBy = params.get('groupBy') ?? '';
  const q = useMemo(() => ({ ...rangeQuery(rangeId), ...(groupBy && { groupBy }) }), [rangeId, groupBy]);
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  if (org.error) return <Page title="Analytics"><ErrorDisplay error={org.error} /></Page>;
  if (!org.data) return <Page title="Analytics"><Loading /></Page>;
  const { timezone, analyticsLabels } = org.data.data;
  return (
    <Page title="Analytics" actions={<Link className="button secondary" to="/client-board">Client board</Link>}>
      <div className="filters" role="group" aria-label="Range and grouping">
        <SelectField label="Range" value={rangeId ?? '30d'} onChange={(e) => set('range', e.target.value)}>
          {RANGES.map((r) => <option key={r.id} value={r.id}>{r.label}</option>)}
        </SelectField>
        <SelectField label="Group alerts by" value={groupBy} onChange={(e) => set('groupBy', e.target.value)}>
          <option value="">Nothing</option>
          <option value="severity">Severity</option>
          <option value="client">Client</option>
          <option value="integration">Integration</option>
          {analyticsLabels.map((k) => <option key={k} value={`label:${k}`}>Label {k}</option>)}
        </SelectField>
      </div>
      {canSet && <Settings key={`${timezone}|${analyticsLabels.join()}`} timezone={timezone} labels={analyticsLabels} />}
      <p className="hint">Days, weeks and months of {timezone}.</p>
      <VolumeCharts q={q} zone={timezone} />
      <ResponseCharts q={q} zone={timezone} />
      <div className="grid-2">
        <People from={q.from} to={q.to} />
        <NoisyAlerts from={q.from} to={q.to} />
      </div>
    </Page>
  );
}
