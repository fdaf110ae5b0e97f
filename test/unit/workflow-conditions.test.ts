import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConditionSubject } from '../../src/lib/conditions.ts';
import { checkConditions, matches } from '../../src/modules/workflows/conditions-fns.ts';
import type { Condition } from '../../src/modules/workflows/workflows-schemas.ts';
import { LINEAR_BOUND_MS, within } from '../support/within.ts';

const CONDITIONS_FNS = new URL('../../src/modules/workflows/conditions-fns.ts', import.meta.url);

const alert: ConditionSubject = {
  title: 'Disk full on db1',
  severity: 'high',
  status: 'firing',
  source: 'node-exporter',
  description: null,
  fingerprint: 'fp-1',
  clientId: 'cli_1',
  integrationId: null,
  labels: { env: 'prod', host: 'db1', service: 'checkout', empty: '' },
  annotations: { runbook: 'https://runbooks/disk' },
};

const leaf = (field: string, op: string, value?: unknown) => ({ field, op, ...(value !== undefined && { value }) }) as Condition;
const T = leaf('labels.env', 'eq', 'prod');
const F = leaf('labels.env', 'eq', 'staging');

/** Checks as the API does, then evaluates: every case also proves the condition is accepted when saved. */
function evaluate(c: unknown, subject: ConditionSubject = alert): boolean {
  const checked = checkConditions(c);
  assert.ok(checked.ok, `refused: ${JSON.stringify(!checked.ok && checked.errors)}`);
  return matches(checked.conditions, subject);
}

describe('workflow conditions: each op', () => {
  const table: Array<[string, string, unknown, boolean]> = [
    ['labels.env', 'eq', 'prod', true],
    ['labels.env', 'eq', 'PROD', false],
    ['severity', 'eq', 'high', true],
    ['clientId', 'eq', 'cli_1', true],
    ['labels.env', 'neq', 'staging', true],
    ['labels.env', 'neq', 'prod', false],
    ['labels.env', 'in', ['staging', 'prod'], true],
    ['labels.env', 'in', ['staging'], false],
    ['severity', 'nin', ['low', 'info'], true],
    ['severity', 'nin', ['high'], false],
    ['title', 'contains', 'full', true],
    ['title', 'contains', 'Full', false],
    ['labels.host', 'startsWith', 'db', true],
    ['labels.host', 'startsWith', 'web', false],
    ['labels.host', 'matches', '^db[0-9]+$', true],
    ['labels.host', 'matches', '^web', false],
    ['annotations.runbook', 'matches', '(?i)RUNBOOKS/DISK', true],
    ['labels.env', 'exists', true, true],
    ['labels.empty', 'exists', undefined, true],
    ['labels.env', 'exists', false, false],
    ['source', 'eq', 'node-exporter', true],
    ['status', 'in', ['firing', 'acknowledged'], true],
  ];
  for (const [field, op, value, expected] of table) {
    it(`${field} ${op} ${JSON.stringify(value)} → ${expected}`, () => {
      assert.equal(evaluate(leaf(field, op, value)), expected);
      // The same leaf nested under `not` gives the opposite.
      assert.equal(evaluate({ not: leaf(field, op, value) }), !expected);
    });
  }

  it('a missing label, a missing annotation or a null field fails every op but neq, nin and exists:false', () => {
    const table: Array<[string, unknown, boolean]> = [
      ['eq', 'x', false], ['neq', 'x', true], ['in', ['x'], false], ['nin', ['x'], true],
      ['contains', 'x', false], ['startsWith', 'x', false], ['matches', '.*', false],
      ['exists', true, false], ['exists', false, true],
    ];
    for (const field of ['labels.region', 'annotations.owner', 'description', 'integrationId']) {
      for (const [op, value, expected] of table) {
        assert.equal(evaluate(leaf(field, op, value)), expected, `${field} ${op}`);
      }
    }
  });

  it('an alert without any labels at all is the same as missing labels', () => {
    const bare = { ...alert, labels: {}, annotations: {} };
    assert.equal(evaluate(leaf('labels.env', 'eq', 'prod'), bare), false);
    assert.equal(evaluate(leaf('labels.env', 'neq', 'prod'), bare), true);
    assert.equal(evaluate({ not: leaf('labels.env', 'exists') }, bare), true);
  });

  it('label keys are read as own data: __proto__, constructor and toString are not inherited properties', () => {
    const labels = JSON.parse('{"__proto__":"p","constructor":"c"}') as Record<string, string>;
    const subject = { ...alert, labels };
    assert.equal(evaluate(leaf('labels.__proto__', 'eq', 'p'), subject), true);
    assert.equal(evaluate(leaf('labels.constructor', 'eq', 'c'), subject), true);
    assert.equal(evaluate(leaf('labels.toString', 'exists'), subject), false);
    assert.equal(evaluate(leaf('labels.constructor', 'exists'), alert), false);
  });
});

describe('workflow conditions: all / any / not', () => {
  const table: Array<[string, unknown, boolean]> = [
    ['no conditions (null)', null, true],
    ['all of true', { all: [T, T] }, true],
    ['all with one false', { all: [T, F] }, false],
    ['any with one true', { any: [F, T] }, true],
    ['any of false', { any: [F, F] }, false],
    ['not true', { not: T }, false],
    ['not false', { not: F }, true],
    ['not not true', { not: { not: T } }, true],
    ['all [true, any [false, true]]', { all: [T, { any: [F, T] }] }, true],
    ['all [true, any [false, false]]', { all: [T, { any: [F, F] }] }, false],
    ['any [all [true, false], not false]', { any: [{ all: [T, F] }, { not: F }] }, true],
    ['any → all → not → leaf (4 levels)', { any: [F, { all: [T, { not: F }] }] }, true],
    ['not any [all [true, true]]', { not: { any: [{ all: [T, T] }] } }, false],
    ['a single-item all is its item', { all: [F] }, false],
  ];
  for (const [name, c, expected] of table) {
    it(`${name} → ${expected}`, () => assert.equal(evaluate(c), expected));
  }

  it('matches() also takes undefined as "no conditions"', () => {
    assert.equal(matches(undefined, alert), true);
  });

  it('stores exists with its boolean (normalized), keeping the rest as given', () => {
    const checked = checkConditions({ all: [{ field: 'labels.env', op: 'exists' }, { not: { field: 'title', op: 'contains', value: 'x' } }] });
    assert.ok(checked.ok);
    assert.deepEqual(checked.conditions, { all: [{ field: 'labels.env', op: 'exists', value: true }, { not: { field: 'title', op: 'contains', value: 'x' } }] });
  });
});

describe('workflow conditions: checked when saved, with the path of each problem', () => {
  const bad: Array<[unknown, string, RegExp]> = [
    [{}, '/conditions', /exactly one of/],
    [{ all: [T], any: [T] }, '/conditions', /exactly one of/],
    [{ all: [T], field: 'title', op: 'eq', value: 'x' }, '/conditions', /exactly one of/],
    [{ all: [] }, '/conditions/all', /non-empty/],
    [{ any: 'x' }, '/conditions/any', /non-empty list/],
    [[T], '/conditions', /exactly one of/],
    ['labels.env', '/conditions', /exactly one of/],
    [{ all: [T, { field: 'labels.host', op: 'matches', value: 'a(' }] }, '/conditions/all/1/value', /regular expression/],
    [{ all: [T, { field: 'labels.host', op: 'matches', value: '(a)\\1' }] }, '/conditions/all/1/value', /regular expression/],
    [{ any: [{ not: { field: 'nope', op: 'eq', value: 'x' } }] }, '/conditions/any/0/not/field', /must be one of/],
    [{ any: [{ not: { field: 'title', op: 'like', value: 'x' } }] }, '/conditions/any/0/not/op', /must be one of/],
    [{ all: [{ field: 'title', op: 'in', value: 'x' }] }, '/conditions/all/0/value', /list of strings/],
    [{ all: [{ field: 'title', op: 'eq', value: ['x'] }] }, '/conditions/all/0/value', /must be a string/],
    [{ all: [{ field: 'title', op: 'in', value: [1] }] }, '/conditions/all/0/value', /string/],
    [{ all: [{ field: 'title', op: 'exists', value: 'yes' }] }, '/conditions/all/0/value', /boolean/],
    [{ all: [{ op: 'eq', value: 'x' }] }, '/conditions/all/0/field', /required/],
    [{ all: [{ field: 'title', op: 'eq', value: 'x', extra: 1 }] }, '/conditions/all/0/extra', /not an allowed field/],
    [{ any: [{ all: [{ not: { all: [T] } }] }] }, '/conditions/any/0/all/0/not', /nests too deeply/],
    [{ not: { not: { not: { not: T } } } }, '/conditions/not/not/not', /nests too deeply/],
    [{ any: Array.from({ length: 51 }, () => T) }, '/conditions', /at most 50/],
    [{ all: [{ any: Array.from({ length: 30 }, () => T) }, { any: Array.from({ length: 21 }, () => F) }] }, '/conditions', /51 leaf conditions/],
  ];
  for (const [c, path, message] of bad) {
    it(`${JSON.stringify(c).slice(0, 90)} → ${path}`, () => {
      const checked = checkConditions(c);
      assert.equal(checked.ok, false);
      assert.ok(!checked.ok && checked.errors.some((e) => e.path === path && message.test(e.message)), JSON.stringify(!checked.ok && checked.errors));
    });
  }

  it('names every bad leaf, not only the first', () => {
    const checked = checkConditions({ all: [{ field: 'x', op: 'eq', value: 'a' }, T, { field: 'labels.a', op: 'matches', value: '[' }] }, '/c');
    assert.ok(!checked.ok);
    assert.deepEqual(checked.errors.map((e) => e.path), ['/c/all/0/field', '/c/all/2/value']);
  });

  it('accepts 50 leaves and 4 levels', () => {
    assert.ok(checkConditions({ any: Array.from({ length: 50 }, () => T) }).ok);
    assert.ok(checkConditions({ all: [{ any: [{ not: T }] }] }).ok);
  });
});

describe('workflow conditions: matches is linear time', () => {
  // The evaluations on a thread of their own, ended if they have not returned within the bound: a catastrophic
  // backtrack would never give the test's thread back.
  const evaluateWithin = (conditions: unknown[], subject: ConditionSubject) => within(LINEAR_BOUND_MS, {
    checkConditions: [CONDITIONS_FNS, 'checkConditions'], matches: [CONDITIONS_FNS, 'matches'],
  }, (d, list: unknown[], s: ConditionSubject) => list.map((cond) => {
    const checked = d.checkConditions(cond);
    if (!checked.ok) throw new Error(`refused: ${JSON.stringify(checked.errors)}`);
    return d.matches(checked.conditions, s) as boolean;
  }), conditions, subject);

  it('(a+)+$ against 50,000 a and a b returns (false), as do other patterns that backtrack catastrophically elsewhere', async () => {
    const subject = { ...alert, labels: { ...alert.labels, host: `${'a'.repeat(50_000)}b` } };
    const patterns = ['(a+)+$', '^(a|a)*$', '(a*)*c', '^(a|aa)+$'];
    const results = await evaluateWithin([
      ...patterns.map((pattern) => ({ all: [{ field: 'labels.host', op: 'matches', value: pattern }] })),
      // A pattern that does match a long input returns too.
      { not: { field: 'labels.host', op: 'matches', value: '^(a+)+b$' } },
    ], subject);
    assert.deepEqual(results, [...patterns.map(() => false), false]);
  });
});
