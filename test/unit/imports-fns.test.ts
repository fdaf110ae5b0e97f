import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importReport } from '../../src/cli/import-report.ts';
import { digestOf, nearestPreset, restrictionsOf, startLayerAt } from '../../src/modules/imports/imports-fns.ts';
import { layerSpans } from '../../src/modules/schedules/rotation-fns.ts';
import { opsgeniePolicy } from '../../src/modules/imports/sources/opsgenie-rota.ts';
import { criteriaOf, noneOf } from '../../src/modules/imports/sources/opsgenie-routing.ts';


describe('on-call windows as restrictions', () => {
  const cases: Array<[string, Parameters<typeof restrictionsOf>[0], ReturnType<typeof restrictionsOf>]> = [
    ['every day 18:00 for 14 h (overnight)', [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, startMinute: 1080, minutes: 840 })),
      [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: '18:00', to: '08:00' }]],
    ['Monday 09:00 for 4.5 days: four whole days, then the rest', [{ day: 0, startMinute: 540, minutes: 6480 }],
      [{ days: ['mon', 'tue', 'wed', 'thu'], from: '09:00', to: '09:00' }, { days: ['fri'], from: '09:00', to: '21:00' }]],
    ['Sunday 22:00 for 8 h runs into Monday', [{ day: 6, startMinute: 1320, minutes: 480 }], [{ days: ['sun'], from: '22:00', to: '06:00' }]],
    ['a whole week is no restriction', [{ day: 2, startMinute: 0, minutes: 7 * 1440 }], []],
  ];
  for (const [name, windows, expected] of cases) it(name, () => assert.deepEqual(restrictionsOf(windows), expected));

  it('more pieces than a layer may have: null', () => {
    const windows = Array.from({ length: 15 }, (_, i) => ({ day: i % 7, startMinute: i * 10, minutes: 5 }));
    assert.equal(restrictionsOf(windows), null);
  });

  it('a window over several days is on call without a gap, as the source had it', () => {
    const [r] = [restrictionsOf([{ day: 0, startMinute: 540, minutes: 2 * 1440 + 60 }]) ?? []];
    const layer = { name: 'x', startsAt: Date.parse('2026-11-02T00:00:00Z'), rotation: 'weekly' as const, shiftHours: null, users: ['a'], restrictions: r };
    const spans = layerSpans(layer, 'UTC', Date.parse('2026-11-02T00:00:00Z'), Date.parse('2026-11-09T00:00:00Z'));
    assert.deepEqual(spans.map((s) => [new Date(s.start).toISOString(), new Date(s.end).toISOString()]), [['2026-11-02T09:00:00.000Z', '2026-11-04T10:00:00.000Z']]);
  });
});

describe('a layer that starts after its rotation\'s anchor', () => {
  const layer = { name: 'l', startsAt: Date.parse('2026-03-01T09:00:00Z'), rotation: 'daily' as const, shiftHours: null, users: ['a', 'b', 'c'], restrictions: [] };
  it('starts at the first handoff from then, with the person whose turn it is', () => {
    const { layer: l, exact } = startLayerAt(layer, 'Europe/Berlin', Date.parse('2026-03-05T08:00:00Z'));
    // 10:00 local each day; 4 turns later (March 5), across no DST change.
    assert.deepEqual([new Date(l.startsAt).toISOString(), l.users, exact], ['2026-03-05T09:00:00.000Z', ['b', 'c', 'a'], false]);
  });
  it('keeps the local handoff time across a DST change', () => {
    const { layer: l } = startLayerAt(layer, 'Europe/Berlin', Date.parse('2026-04-01T00:00:00Z'));
    assert.equal(new Date(l.startsAt).toISOString(), '2026-04-01T08:00:00.000Z');
  });
});

describe('Opsgenie escalation rules timed from the alert as steps', () => {
  const rule = (minutes: number, id: string) => ({ condition: 'if-not-acked', notifyType: 'default', delay: { timeAmount: minutes, timeUnit: 'minutes' }, recipient: { type: 'user', id } });
  it('rules at one time share a step; each step waits the difference to the next; the repeat waits its interval', () => {
    const p = opsgeniePolicy({ id: 'e', name: 'E', rules: [rule(0, 'a'), rule(10, 'b'), rule(10, 'c'), rule(1, 'd')], repeat: { waitInterval: 7, count: 2 } },
      (r) => [{ type: 'user', sourceId: String(r.id) }], []);
    assert.deepEqual(p.steps, [
      { delayMinutes: 1, targets: [{ type: 'user', sourceId: 'a' }] },
      { delayMinutes: 9, targets: [{ type: 'user', sourceId: 'd' }] },
      { delayMinutes: 7, targets: [{ type: 'user', sourceId: 'b' }, { type: 'user', sourceId: 'c' }] },
    ]);
    assert.equal(p.repeat, 2);
  });
});

describe('Opsgenie criteria as conditions', () => {
  it('maps fields and operations, negates, and refuses what has no equivalent', () => {
    assert.deepEqual(criteriaOf({ type: 'match-all-conditions', conditions: [
      { field: 'message', operation: 'ends-with', expectedValue: 'down.' },
      { field: 'priority', operation: 'equals', expectedValue: 'P1', not: true },
    ] }), { ok: true, condition: { all: [{ field: 'title', op: 'matches', value: 'down\\.$' }, { field: 'severity', op: 'neq', value: 'critical' }] } });
    assert.deepEqual(criteriaOf({ type: 'match-all' }), { ok: true, condition: null });
    assert.deepEqual(criteriaOf({ type: 'match-all-conditions', conditions: [{ field: 'tags', operation: 'contains', expectedValue: 'a.b' }] }),
      { ok: true, condition: { field: 'labels.tags', op: 'matches', value: '(^|,)a\\.b(,|$)' } });
    assert.equal(criteriaOf({ type: 'match-any-condition', conditions: [{ field: 'recipients', operation: 'contains', expectedValue: 'x' }] }).ok, false);
  });
});

describe('"none of the rules before" pushed down to the leaves', () => {
  const a = { field: 'title', op: 'eq' as const, value: 'x' };
  const b = { field: 'labels.env', op: 'exists' as const, value: true };
  it('not any = all not; not all = any not; a negation undone', () => {
    assert.deepEqual(noneOf({ any: [a, b] }), [{ ...a, op: 'neq' }, { ...b, value: false }]);
    assert.deepEqual(noneOf({ all: [a, { not: b }] }), [{ any: [{ ...a, op: 'neq' }, b] }]);
  });
});

describe('import helpers', () => {
  it('a digest does not depend on the order of keys', () => assert.equal(digestOf({ a: 1, b: [{ c: 2, d: 3 }] }), digestOf({ b: [{ d: 3, c: 2 }], a: 1 })));
  it('the nearest preset by vendor or type name', () => {
    assert.deepEqual(['Prometheus', 'GrafanaV2', 'legacy_grafana_alerting', 'Zabbix', 'NewRelicV2', 'Nagios'].map(nearestPreset),
      ['alertmanager', 'grafana', 'grafana', 'zabbix', 'newrelic', 'standard']);
  });
});

describe('the text report', () => {
  it('counts, and shows what the other tool named without its control characters (no terminal escapes)', () => {
    const text = importReport({
      system: 'pagerduty', applied: true, update: [], unchanged: [],
      create: [{ kind: 'schedule', sourceId: 'P1', name: 'Ops\u001b[2J\u001b]0;pwned\u0007', id: 'sch_1' }],
      skip: [{ kind: 'user', sourceId: 'P2', name: 'Eve\r\n0 created', reason: 'no member' }],
    });
    assert.doesNotMatch(text, /[\u0000-\u001f](?<!\n)/);
    assert.match(text, /Ops\?\[2J\?\]0;pwned\?  → sch_1/);
    assert.match(text, /Eve\?\?0 created: no member/);
    assert.match(text.split('\n').at(-1) ?? '', /^1 created, 0 updated, 1 not carried over, 0 unchanged\.$/);
  });
});
