import { describe, expect, it } from 'vitest';
import { duration, every, labelsText, parseLabels } from './heartbeats-fns';

describe('heartbeat form helpers', () => {
  it('reads labels one key=value a line, trimming, skipping blank lines, keeping = in values', () => {
    expect(parseLabels('team = dba\n\n  env=prod\nquery=a=b\nempty=')).toEqual({ ok: true, labels: { team: 'dba', env: 'prod', query: 'a=b', empty: '' } });
    expect(parseLabels('')).toEqual({ ok: true, labels: {} });
  });

  it('names the line that is not key=value', () => {
    expect(parseLabels('team=dba\njust text')).toEqual({ ok: false, error: 'line 2 is not key=value' });
    expect(parseLabels('=value')).toEqual({ ok: false, error: 'line 1 is not key=value' });
  });

  it('writes labels back as the form reads them', () => {
    const labels = { team: 'dba', query: 'a=b' };
    expect(parseLabels(labelsText(labels))).toEqual({ ok: true, labels });
  });

  it('says durations as people write them', () => {
    expect([duration(0), duration(90), duration(900), duration(86_400)]).toEqual(['0 s', '90 s', '15 min', '24 h']);
    expect(every({ intervalSeconds: 3600, graceSeconds: 300 })).toBe('every 1 h, 5 min grace');
  });
});
