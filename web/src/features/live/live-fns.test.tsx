import { describe, expect, it, vi } from 'vitest';
import { announces, staleKeys, throttle, titlePrefix } from './live-fns';

const data = { id: 'alt_1', status: 'firing', severity: 'critical', title: 'Disk full' };

describe('live updates', () => {
  it('makes the alert lists and that alert stale on an alert event, the incidents on an incident event', () => {
    expect(staleKeys('alert.updated', data)).toEqual([['alerts'], ['alert', 'alt_1']]);
    expect(staleKeys('incident.created', { ...data, id: 'inc_1' })).toEqual([['incidents'], ['alerts', 'client-board']]);
    expect(staleKeys('something.else', data)).toEqual([]);
  });

  it('shows the firing count in the title only when alerts fire', () => {
    expect(titlePrefix(3)).toBe('(3) ');
    expect(titlePrefix(0)).toBe('');
    expect(titlePrefix(undefined)).toBe('');
    expect(titlePrefix(12345)).toBe('(999+) ');
  });

  it('announces only new critical firing alerts', () => {
    expect(announces('alert.created', data)).toBe(true);
    expect(announces('alert.updated', data)).toBe(false);
    expect(announces('alert.created', { ...data, severity: 'high' })).toBe(false);
    expect(announces('alert.created', { ...data, status: 'suppressed' })).toBe(false);
  });

  it('flushes the first change at once and a burst after it once, with every key', () => {
    vi.useFakeTimers();
    let t = 1_000;
    const flushed: unknown[][][] = [];
    const th = throttle(300, (keys) => flushed.push(keys), () => t);
    th.add([['alerts']]);
    expect(flushed).toEqual([[['alerts']]]);
    th.add([['alerts'], ['alert', 'a']]);
    th.add([['incidents']]);
    expect(flushed.length).toBe(1);
    t += 300;
    vi.advanceTimersByTime(300);
    expect(flushed[1]).toEqual([['alerts'], ['alert', 'a'], ['incidents']]);
    vi.useRealTimers();
  });
});
