import { useEffect, useId, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { downloadCsv, type Cell } from './csv';
import { TableWrap } from './table-wrap';

export interface ChartSeries {
  label: string;
  /** One value per x; null: no value there (a gap). */
  values: Array<number | null>;
}

interface Props {
  title: string;
  /** Bucket starts, ISO. */
  x: string[];
  series: ChartSeries[];
  /** How a value reads in the table, the tooltip and the axis (e.g. minutes). */
  format?: (v: number) => string;
  /** The x column's heading and how a bucket start reads. */
  xLabel: string;
  formatX: (iso: string) => string;
  /** The CSV file's name, without `.csv`. */
  file: string;
}

/** Series colours that read on both themes (contrast ≥ 3:1 on the light and the dark surface). */
const PALETTE = ['#2f7ed8', '#d9534f', '#2e9d5b', '#b07d00', '#8e5cc8', '#0f8b8d', '#c2185b', '#6d7b8a'];

const cssVar = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function useDarkMode(): boolean {
  const query = '(prefers-color-scheme: dark)';
  const [dark, setDark] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const m = window.matchMedia(query);
    const on = () => setDark(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return dark;
}

/** A uPlot line chart sized to its box, redrawn in the theme's colours; the same figures as a table and as CSV. */
function Plot({ x, series, format, title }: Pick<Props, 'x' | 'series' | 'format' | 'title'>) {
  const box = useRef<HTMLDivElement>(null);
  const dark = useDarkMode();
  // The latest formatter, without redrawing the chart whenever a parent passes a new function.
  const formatRef = useRef(format);
  formatRef.current = format;
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const text = cssVar('--text');
    const grid = cssVar('--border');
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const fmt = (v: number) => (formatRef.current ?? String)(v);
    const plot = new uPlot({
      width: Math.max(280, el.clientWidth),
      height: 240,
      title: undefined,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [{ ...axis }, { ...axis, size: 60, values: (_u, ticks) => ticks.map((v) => fmt(v)) }],
      series: [{}, ...series.map((s, i) => ({
        label: s.label, stroke: PALETTE[i % PALETTE.length] as string, width: 2, spanGaps: false, points: { show: x.length <= 40 },
        value: (_u: uPlot, v: number | null) => (v === null ? '—' : fmt(v)),
      }))],
    }, [x.map((t) => Date.parse(t) / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, dark]);
  return <div ref={box} className="chart-canvas" role="img" aria-label={`${title}: chart; the table view lists the same figures`} />;
}

export function Chart({ title, x, series, format, xLabel, formatX, file }: Props) {
  const [table, setTable] = useState(false);
  const headId = useId();
  const fmt = format ?? ((v: number) => String(v));
  const rows: Cell[][] = x.map((t, i) => [formatX(t), ...series.map((s) => s.values[i] ?? null)]);
  return (
    <section className="panel chart" aria-labelledby={headId}>
      <div className="section-head">
        <h2 id={headId}>{title}</h2>
        <div className="actions">
          <button type="button" className="secondary small" aria-pressed={table} onClick={() => setTable(!table)}>{table ? 'Show chart' : 'Show table'}</button>
          <button type="button" className="secondary small" onClick={() => downloadCsv(file, [[xLabel, ...series.map((s) => s.label)], ...rows])}>Download CSV</button>
        </div>
      </div>
      {series.length === 0 || x.length === 0 ? <p className="muted">Nothing in this range.</p> : table ? (
        <TableWrap label={title}>
          <table>
            <caption className="sr-only">{title}</caption>
            <thead><tr><th scope="col">{xLabel}</th>{series.map((s) => <th scope="col" key={s.label} className="num">{s.label}</th>)}</tr></thead>
            <tbody>
              {x.map((t, i) => (
                <tr key={t}><th scope="row">{formatX(t)}</th>{series.map((s) => <td key={s.label} className="num">{s.values[i] == null ? '—' : fmt(s.values[i] as number)}</td>)}</tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : <Plot x={x} series={series} format={fmt} title={title} />}
    </section>
  );
}
