import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  attention, bucketEdges, bucketOf, coveredMs, dayStart, isWorkingHours, lastDays, monthRange, previousMonth, rollup, splitMonths, spreads,
  trendPercent, type AlertDims,
} from '../../src/modules/analytics/analytics-fns.ts';

const t = (s: string): number => Date.parse(s);
const iso = (ms: number): string => new Date(ms).toISOString();
const alert = (over: Partial<AlertDims> = {}): AlertDims => ({
  orgId: 'org_1', severity: 'high', clientId: null, integrationId: 'int_1', fingerprint: 'fp', title: 'Disk full', labels: {}, ...over,
});
const berlin = () => ({ zone: 'Europe/Berlin', labels: ['service'] });

describe('analytics rollup', () => {
  it('adds each fact to one row per dimension value, merged within a batch, and every dimension sums to the total', () => {
    const d = rollup([
      { kind: 'alert_created', alert: alert({ labels: { service: 'api' }, clientId: 'cli_1' }), at: t('2026-05-04T10:15:00Z') },
      { kind: 'alert_created', alert: alert({ severity: 'critical' }), at: t('2026-05-04T10:45:00Z') },
      { kind: 'alert_repeated', alert: alert({ labels: { service: 'api' }, clientId: 'cli_1' }), at: t('2026-05-04T10:50:00Z'), times: 4 },
    ], berlin);
    const hourly = [...d.hourly.values()];
    // Severity high/critical, client cli_1/none, integration int_1, label:service api/none: 7 rows in the one hour.
    assert.equal(hourly.length, 7);
    for (const dim of ['severity', 'client', 'integration', 'label:service']) {
      const rows = hourly.filter((r) => r.dim === dim);
      assert.equal(rows.reduce((n, r) => n + (r.alerts ?? 0), 0), 2, dim);
      assert.equal(rows.reduce((n, r) => n + (r.occurrences ?? 0), 0), 6, dim);
    }
    assert.ok(hourly.every((r) => r.time === t('2026-05-04T10:00:00Z')));
    // The local day in Berlin (UTC+2 in May) starts at 22:00 UTC the day before.
    assert.ok([...d.daily.values()].every((r) => r.time === t('2026-05-03T22:00:00Z')));
    // Per alert and client: the fingerprint's payloads for cli_1 and for no client are counted apart, by day and by month.
    assert.deepEqual([...d.noisy.values()].map((r) => [r.fingerprint, r.clientId, r.alerts, r.occurrences]), [['fp', 'cli_1', 1, 5], ['fp', '', 1, 1]]);
    assert.deepEqual([...d.noisyMonthly.values()].map((r) => [iso(r.day), r.occurrences]), [['2026-04-30T22:00:00.000Z', 5], ['2026-04-30T22:00:00.000Z', 1]]);
  });

  it('counts a resolution within a minute only, in the hour the alert opened; an incident is not an alert\'s noise', () => {
    const opened = t('2026-05-04T10:59:50Z');
    const quick = rollup([{ kind: 'alert_resolved', alert: alert(), openedAt: opened, at: opened + 59_999 }], berlin);
    assert.deepEqual([...quick.hourly.values()].map((r) => [r.dim, iso(r.time), r.quickResolves]).find(([dim]) => dim === 'severity'), ['severity', '2026-05-04T10:00:00.000Z', 1]);
    assert.equal(rollup([{ kind: 'alert_resolved', alert: alert(), openedAt: opened, at: opened + 60_000 }], berlin).hourly.size, 0);
    const incident = rollup([{ kind: 'incident_opened', alert: alert(), at: opened }], berlin);
    assert.equal(incident.noisy.size, 0);
    assert.ok(incident.hourly.size > 0);
  });

  it('splits a person\'s pages by their own working hours', () => {
    const page = (at: string, zone: string) => rollup([{ kind: 'page_sent', alert: alert(), at: t(at), person: { userId: 'usr_1', zone } }], berlin);
    const row = (d: ReturnType<typeof rollup>) => [...d.pages.values()].map((r) => [r.working, r.offHours])[0];
    assert.deepEqual(row(page('2026-05-04T13:00:00Z', 'America/New_York')), [1, 0]); // Monday 09:00 in New York
    assert.deepEqual(row(page('2026-05-04T12:59:00Z', 'America/New_York')), [0, 1]); // 08:59
    assert.deepEqual(row(page('2026-05-04T13:00:00Z', 'Asia/Tokyo')), [0, 1]); // Monday 22:00 in Tokyo
    assert.deepEqual(row(page('2026-05-02T12:00:00Z', 'Europe/Berlin')), [0, 1]); // Saturday
    assert.equal(isWorkingHours(t('2026-05-08T15:59:59Z'), 'Europe/Berlin'), true); // Friday 17:59:59
    assert.equal(isWorkingHours(t('2026-05-08T16:00:00Z'), 'Europe/Berlin'), false); // Friday 18:00
  });
});

describe('analytics buckets', () => {
  it('days of the zone are 23 and 25 hours long on DST changes; weeks start Monday; months at local midnight', () => {
    assert.deepEqual(bucketEdges(t('2026-10-24T12:00:00Z'), t('2026-10-26T12:00:00Z'), 'day', 'Europe/Berlin').map(iso),
      ['2026-10-23T22:00:00.000Z', '2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z', '2026-10-26T23:00:00.000Z']);
    assert.deepEqual(bucketEdges(t('2026-03-04T00:00:00Z'), t('2026-03-10T00:00:00Z'), 'week', 'America/New_York').map(iso),
      ['2026-03-02T05:00:00.000Z', '2026-03-09T04:00:00.000Z', '2026-03-16T04:00:00.000Z']);
    assert.deepEqual(bucketEdges(t('2026-01-15T00:00:00Z'), t('2026-02-01T00:00:00Z'), 'month', 'Asia/Kolkata').map(iso),
      ['2025-12-31T18:30:00.000Z', '2026-01-31T18:30:00.000Z', '2026-02-28T18:30:00.000Z']);
    assert.deepEqual(bucketEdges(t('2026-01-15T00:30:00Z'), t('2026-01-15T02:00:00Z'), 'hour', 'Asia/Kolkata').map(iso),
      ['2026-01-15T00:00:00.000Z', '2026-01-15T01:00:00.000Z', '2026-01-15T02:00:00.000Z']);
    const edges = bucketEdges(t('2026-10-24T12:00:00Z'), t('2026-10-26T12:00:00Z'), 'day', 'Europe/Berlin');
    assert.equal(bucketOf(edges, t('2026-10-25T22:59:59Z')), 1);
    assert.equal(bucketOf(edges, t('2026-10-25T23:00:00Z')), 2);
    assert.equal(bucketOf(edges, t('2026-10-23T21:59:59Z')), -1);
    assert.equal(dayStart(t('2026-10-25T23:30:00Z'), 'Europe/Berlin'), t('2026-10-25T23:00:00Z'));
  });

  it('the last 7 days end with today; a month and the one before it in the zone', () => {
    const days = lastDays(t('2026-03-30T10:00:00Z'), 7, 'Europe/Berlin');
    assert.equal(days.length, 8);
    assert.equal(iso(days[0] as number), '2026-03-23T23:00:00.000Z');
    assert.equal(iso(days[6] as number), '2026-03-29T22:00:00.000Z');
    const march = monthRange('2026-03', 'Europe/Berlin');
    assert.deepEqual(march && [iso(march.from), iso(march.to)], ['2026-02-28T23:00:00.000Z', '2026-03-31T22:00:00.000Z']);
    assert.equal(monthRange('2026-13', 'UTC'), null);
    // 00:30 on April 1st in Berlin is still March 31st in UTC: the month before is March.
    assert.equal(previousMonth(t('2026-03-31T22:30:00Z'), 'Europe/Berlin'), '2026-03');
    assert.equal(previousMonth(t('2026-01-01T00:00:00Z'), 'UTC'), '2025-12');
  });
});

describe('analytics figures', () => {
  it('nearest-rank median and p90', () => {
    const spread = (values: number[]) => spreads(Float64Array.from(values), [new Int32Array(values.length)], 1)[0];
    assert.deepEqual(spread([]), { count: 0, median: null, p90: null });
    assert.deepEqual(spread([7]), { count: 1, median: 7, p90: 7 });
    assert.equal(spread([4, 2, 3, 1])?.median, 2);
    assert.equal(spread([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])?.p90, 9);
    assert.deepEqual(spread([10, 1, 5]), { count: 3, median: 5, p90: 10 });
  });

  it('many groups\' spreads at once equal each group\'s own, ties and missing values included', () => {
    // Values with ties and nulls; level 0 puts everything in group 0, level 1 in groups 1–3, level 2 in groups 4–10 or none.
    const values = Array.from({ length: 500 }, (_, i) => (i % 7 === 3 ? null : (i * 7919) % 61));
    const levels = [new Int32Array(values.length), Int32Array.from(values, (_, i) => 1 + (i % 3)), Int32Array.from(values, (_, i) => (i % 11 === 0 ? -1 : 4 + (i % 7)))];
    const got = spreads(Float64Array.from(values, (v) => v ?? NaN), levels, 12);
    // Each group sorted on its own, read at ranks ceil(p·n) (1-based).
    const own = (g: number) => {
      const sorted = values.flatMap((v, i) => (v !== null && levels.some((l) => l[i] === g) ? [v] : [])).sort((a, b) => a - b);
      const at = (p: number) => (sorted.length === 0 ? null : sorted[Math.ceil(p * sorted.length) - 1]);
      return { count: sorted.length, median: at(0.5), p90: at(0.9) };
    };
    assert.deepEqual(got, Array.from({ length: 12 }, (_, g) => own(g)));
    assert.equal(got[0]?.count, values.filter((v) => v !== null).length);
    assert.deepEqual(got[11], { count: 0, median: null, p90: null });
    // Orders that trouble a selection: sorted, reversed, all equal, and many values.
    const ranks = (vs: number[]) => {
      const sorted = [...vs].sort((a, b) => a - b);
      return { count: vs.length, median: sorted[Math.ceil(0.5 * vs.length) - 1], p90: sorted[Math.ceil(0.9 * vs.length) - 1] };
    };
    const many = Array.from({ length: 5000 }, (_, i) => (i * 104_729) % 9973);
    for (const vs of [Array.from({ length: 101 }, (_, i) => i), Array.from({ length: 100 }, (_, i) => 100 - i), Array(37).fill(5), many]) {
      assert.deepEqual(spreads(Float64Array.from(vs), [new Int32Array(vs.length)], 1)[0], ranks(vs));
    }
  });

  it('covered time is the union of intervals clipped to the period; open ones run to its end', () => {
    assert.equal(coveredMs([{ start: 0, end: 10 }, { start: 5, end: 20 }, { start: 30, end: null }], 0, 40), 30);
    assert.equal(coveredMs([{ start: -10, end: 5 }, { start: 50, end: 60 }], 0, 40), 5);
    assert.equal(coveredMs([], 0, 40), 0);
  });

  it('trend and attention', () => {
    assert.equal(trendPercent(150, 100), 50);
    assert.equal(trendPercent(1, 3), -66.7);
    assert.equal(trendPercent(5, 0), null);
    const calm = { openCritical: 0, openHigh: 40, openIncidents: 0, maintenance: null };
    const burning = { openCritical: 1, openHigh: 0, openIncidents: 0, maintenance: null };
    assert.ok(attention(burning) > attention({ ...calm, openIncidents: 3 }));
    assert.ok(attention({ ...burning, maintenance: {} }) < attention(burning));
  });
});

describe('analytics noisy ranges', () => {
  it('whole local months come from monthly rows, the days around them from daily rows', () => {
    const days = (a: string, b: string) => [t(a), t(b)];
    const s = splitMonths(t('2026-02-20T23:00:00Z'), t('2026-04-03T22:00:00Z'), 'Europe/Berlin');
    assert.deepEqual(s.months?.map(iso), ['2026-02-28T23:00:00.000Z', '2026-03-31T22:00:00.000Z']);
    assert.deepEqual(s.days, [days('2026-02-20T23:00:00Z', '2026-02-28T23:00:00Z'), days('2026-03-31T22:00:00Z', '2026-04-03T22:00:00Z')]);
    const short = splitMonths(t('2026-03-02T23:00:00Z'), t('2026-03-20T23:00:00Z'), 'Europe/Berlin');
    assert.deepEqual(short, { months: null, days: [days('2026-03-02T23:00:00Z', '2026-03-20T23:00:00Z')] });
  });
});
