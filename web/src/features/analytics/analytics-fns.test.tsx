import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from '../../components/csv';
import { bucketLabel, groupLabel, rangeQuery, topSeries } from './analytics-fns';

describe('analytics page helpers', () => {
  it('a range ends at the next whole hour and carries its bucket', () => {
    const q = rangeQuery('7d', Date.parse('2026-03-10T10:20:00Z'));
    expect(q).toEqual({ from: '2026-03-03T11:00:00.000Z', to: '2026-03-10T11:00:00.000Z', bucket: 'day' });
    expect(rangeQuery('nonsense', 0).bucket).toBe('day');
  });

  it('labels buckets in the organization\'s zone', () => {
    expect(bucketLabel('2026-03-28T23:00:00.000Z', 'day', 'Europe/Berlin')).toContain('29');
    expect(bucketLabel('2026-03-22T23:00:00.000Z', 'week', 'Europe/Berlin')).toMatch(/^Week of .*23/);
  });

  it('names groups, and sums the smaller ones into Others', () => {
    expect(groupLabel({ key: '', name: null }, 'client')).toBe('No client');
    expect(groupLabel({ key: '', name: null }, 'label:service')).toBe('No service');
    expect(groupLabel({ key: 'cli_1', name: 'Acme' }, 'client')).toBe('Acme');
    const groups = Array.from({ length: 8 }, (_, i) => ({ key: `g${i}`, name: null, v: [i, 1] }));
    const series = topSeries(groups, 'severity', (g) => g.v);
    expect(series.map((s) => s.label)).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'Others (2)']);
    expect(series[6]?.values).toEqual([13, 2]);
  });

  it('CSV fields: quoted when needed, formulas from senders defused', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b "c"')).toBe('"a,b ""c"""');
    expect(csvField('=HYPERLINK("http://evil")')).toBe('"\'=HYPERLINK(""http://evil"")"');
    expect(csvField('-1')).toBe("'-1");
    expect(csvField(-1)).toBe('-1');
    expect(csvField(null)).toBe('');
    expect(toCsv([['a', 1], ['b', null]])).toBe('a,1\r\nb,\r\n');
  });
});
