import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dueAt, heartbeatFingerprint, isMissed, missedAlert, newPingToken, reportedState, resolvedAlert, type HeartbeatTiming } from '../../src/modules/heartbeats/heartbeats-fns.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

const timing = (over: Partial<HeartbeatTiming> = {}): HeartbeatTiming => {
  const base = { interval_seconds: 300, grace_seconds: 60, paused: 0, state: 'up', last_ping_at: T0, created_at: T0 - 86_400_000, ...over };
  return { ...base, due_at: over.due_at ?? dueAt(base.last_ping_at, base.created_at, base.interval_seconds, base.grace_seconds) };
};

describe('heartbeat due times', () => {
  it('is due interval plus grace after the last ping, or after creation when never pinged', () => {
    assert.equal(dueAt(T0, T0 - 1000, 300, 60), T0 + 360_000);
    assert.equal(dueAt(null, T0, 300, 60), T0 + 360_000);
    assert.equal(dueAt(T0, T0, 31_536_000, 31_536_000), T0 + 2 * 31_536_000_000, 'a year and a year of grace do not overflow');
  });

  it('is missed only strictly after its due time, when watched and not already down', () => {
    const cases: Array<[string, Partial<HeartbeatTiming>, number, boolean]> = [
      ['just before', {}, T0 + 359_999, false],
      ['at the due time', {}, T0 + 360_000, false],
      ['one ms after', {}, T0 + 360_001, true],
      ['never pinged, past creation + window', { state: 'new', last_ping_at: null, created_at: T0 }, T0 + 360_001, true],
      ['paused', { paused: 1 }, T0 + 10 * 360_000, false],
      ['already down', { state: 'down' }, T0 + 10 * 360_000, false],
      ['no grace', { grace_seconds: 0 }, T0 + 300_001, true],
    ];
    for (const [name, over, now, expected] of cases) assert.equal(isMissed(timing(over), now), expected, name);
  });

  it('reports paused over the stored state', () => {
    assert.equal(reportedState({ paused: 1, state: 'down' }), 'paused');
    assert.equal(reportedState({ paused: 0, state: 'new' }), 'new');
    assert.equal(reportedState({ paused: 0, state: 'down' }), 'down');
  });
});

describe('heartbeat alerts', () => {
  const hb = { id: 'hbt_1', name: 'nightly-backup', severity: 'high', labels: { team: 'dba', heartbeat: 'spoofed' }, interval_seconds: 86_400, grace_seconds: 900, last_ping_at: T0, due_at: T0 + 87_300_000 };

  it('opens one alert per heartbeat: fingerprint from the id, its labels plus its name, title and severity', () => {
    const a = missedAlert(hb);
    assert.equal(a.fingerprint, heartbeatFingerprint('hbt_1'));
    assert.equal(a.fingerprint, 'heartbeat:hbt_1');
    assert.equal(a.title, 'Heartbeat nightly-backup missed');
    assert.equal(a.severity, 'high');
    assert.equal(a.status, 'firing');
    assert.equal(a.source, 'heartbeat');
    assert.deepEqual(a.labels, { team: 'dba', heartbeat: 'nightly-backup' });
    assert.equal(a.description, 'No ping since 2026-11-21T10:00:00.000Z; expected every 24 h with 15 min of grace.');
    assert.match(missedAlert({ ...hb, last_ping_at: null, interval_seconds: 90, grace_seconds: 0 }).description ?? '', /never pinged.*every 90 s with 0 s/);
  });

  it('resolves by the same fingerprint', () => {
    const r = resolvedAlert('hbt_1');
    assert.equal(r.status, 'resolved');
    assert.equal(r.fingerprint, missedAlert(hb).fingerprint);
  });

  it('makes URL-safe tokens of 192 random bits, never the same twice', () => {
    const tokens = new Set(Array.from({ length: 1000 }, newPingToken));
    assert.equal(tokens.size, 1000);
    for (const t of tokens) assert.match(t, /^hb_[A-Za-z0-9_-]{32}$/);
  });
});
