import type { ChartSeries } from '../../components/chart';

export type Bucket = 'hour' | 'day' | 'week' | 'month';

/** The ranges the page offers, each with the bucket that gives a readable number of points. */
export const RANGES = [
  { id: '24h', label: 'Last 24 hours', days: 1, bucket: 'hour' },
  { id: '7d', label: 'Last 7 days', days: 7, bucket: 'day' },
  { id: '30d', label: 'Last 30 days', days: 30, bucket: 'day' },
  { id: '90d', label: 'Last 90 days', days: 90, bucket: 'week' },
  { id: '12m', label: 'Last 12 months', days: 365, bucket: 'month' },
] as const satisfies ReadonlyArray<{ id: string; label: string; days: number; bucket: Bucket }>;
export type RangeId = (typeof RANGES)[number]['id'];

export const rangeOf = (id: string | null) => RANGES.find((r) => r.id === id) ?? (RANGES[2] as (typeof RANGES)[number]);

/** The query of a range ending now: whole hours, so that the same range asked twice within an hour is one cache entry. */
export function rangeQuery(id: string | null, now = Date.now()): { from: string; to: string; bucket: Bucket } {
  const r = rangeOf(id);
  const to = Math.ceil(now / 3_600_000) * 3_600_000;
  return { from: new Date(to - r.days * 86_400_000).toISOString(), to: new Date(to).toISOString(), bucket: r.bucket };
}

/** A bucket's start as its label: the hour, the day, the week's Monday or the month, in the organization's zone. */
export function bucketLabel(iso: string, bucket: Bucket, timeZone: string): string {
  const d = new Date(iso);
  const opts: Intl.DateTimeFormatOptions = bucket === 'hour'
    ? { timeZone, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
    : bucket === 'month' ? { timeZone, year: 'numeric', month: 'long' } : { timeZone, year: 'numeric', month: 'short', day: 'numeric' };
  const s = new Intl.DateTimeFormat(undefined, opts).format(d);
  return bucket === 'week' ? `Week of ${s}` : s;
}

interface Group { key: string; name: string | null }

/** What a group is called on a chart: its name, its value, or what its empty value means for the grouping. */
export function groupLabel(g: Group, groupBy: string | null): string {
  if (g.name) return g.name;
  if (g.key !== '') return g.key;
  if (groupBy === 'client') return 'No client';
  if (groupBy === 'integration') return 'No integration';
  if (groupBy?.startsWith('label:')) return `No ${groupBy.slice('label:'.length)}`;
  return 'All alerts';
}

/** At most this many lines on a chart: the largest groups, the rest summed into "Others". */
export const MAX_LINES = 6;

/** One line per group (the largest first), the rest summed into "Others". */
export function topSeries<G extends Group>(groups: G[], groupBy: string | null, values: (g: G) => number[]): ChartSeries[] {
  const shown = groups.slice(0, MAX_LINES).map((g) => ({ label: groupLabel(g, groupBy), values: values(g) as Array<number | null> }));
  const rest = groups.slice(MAX_LINES);
  if (rest.length === 0) return shown;
  const sums = values(rest[0] as G).map((_, i) => rest.reduce((n, g) => n + (values(g)[i] ?? 0), 0));
  return [...shown, { label: `Others (${rest.length})`, values: sums }];
}
