import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allLeavesHold, evaluateLeaf, normalizeLeaf, validateLeaf, type ConditionLeaf, type ConditionSubject } from '../../src/lib/conditions.ts';
import { LINEAR_BOUND_MS, within } from '../support/within.ts';

const CONDITIONS = new URL('../../src/lib/conditions.ts', import.meta.url);

const alert: ConditionSubject = {
  title: 'Disk full on db1',
  severity: 'high',
  status: 'firing',
  source: 'node-exporter',
  description: null,
  fingerprint: 'fp-1',
  clientId: 'cli_1',
  integrationId: null,
  labels: { env: 'prod', host: 'db1', empty: '' },
  annotations: { runbook: 'https://runbooks/disk' },
};

describe('condition leaves', () => {
  const cases: Array<[ConditionLeaf, boolean]> = [
    [{ field: 'labels.env', op: 'eq', value: 'prod' }, true],
    [{ field: 'labels.env', op: 'eq', value: 'Prod' }, false],
    [{ field: 'severity', op: 'eq', value: 'high' }, true],
    [{ field: 'clientId', op: 'eq', value: 'cli_1' }, true],
    [{ field: 'labels.env', op: 'neq', value: 'staging' }, true],
    [{ field: 'labels.env', op: 'neq', value: 'prod' }, false],
    [{ field: 'labels.env', op: 'in', value: ['staging', 'prod'] }, true],
    [{ field: 'labels.env', op: 'in', value: ['staging'] }, false],
    [{ field: 'labels.env', op: 'nin', value: ['staging'] }, true],
    [{ field: 'labels.env', op: 'nin', value: ['prod', 'staging'] }, false],
    [{ field: 'title', op: 'contains', value: 'full' }, true],
    [{ field: 'title', op: 'contains', value: 'Full' }, false],
    [{ field: 'labels.host', op: 'startsWith', value: 'db' }, true],
    [{ field: 'labels.host', op: 'startsWith', value: 'web' }, false],
    [{ field: 'labels.host', op: 'matches', value: '^db[0-9]+$' }, true],
    [{ field: 'labels.host', op: 'matches', value: 'b1' }, true],
    [{ field: 'labels.host', op: 'matches', value: '^b1' }, false],
    [{ field: 'annotations.runbook', op: 'matches', value: '(?i)RUNBOOKS' }, true],
    [{ field: 'labels.env', op: 'exists', value: true }, true],
    [{ field: 'labels.empty', op: 'exists', value: true }, true],
    [{ field: 'labels.env', op: 'exists', value: false }, false],
    [{ field: 'annotations.runbook', op: 'exists' }, true],
    [{ field: 'source', op: 'eq', value: 'node-exporter' }, true],
  ];
  for (const [leaf, expected] of cases) {
    it(`${leaf.field} ${leaf.op} ${JSON.stringify(leaf.value)} → ${expected}`, () => {
      assert.deepEqual(validateLeaf(leaf, '/c'), []);
      assert.equal(evaluateLeaf(leaf, alert), expected);
    });
  }

  it('a missing label or a null field fails every op but neq, nin and exists:false', () => {
    const missing: Array<[ConditionLeaf['op'], ConditionLeaf['value'], boolean]> = [
      ['eq', 'x', false], ['neq', 'x', true], ['in', ['x'], false], ['nin', ['x'], true],
      ['contains', '', false], ['startsWith', '', false], ['matches', '.*', false],
      ['exists', true, false], ['exists', false, true],
    ];
    for (const field of ['labels.region', 'description', 'integrationId', 'annotations.none']) {
      for (const [op, value, expected] of missing) {
        assert.equal(evaluateLeaf({ field, op, value }, alert), expected, `${field} ${op}`);
      }
    }
  });

  it('reads only own label keys: __proto__ and constructor are plain data', () => {
    const labels = JSON.parse('{"__proto__":"p","constructor":"c"}') as Record<string, string>;
    const subject = { ...alert, labels };
    assert.equal(evaluateLeaf({ field: 'labels.__proto__', op: 'eq', value: 'p' }, subject), true);
    assert.equal(evaluateLeaf({ field: 'labels.constructor', op: 'eq', value: 'c' }, subject), true);
    assert.equal(evaluateLeaf({ field: 'labels.toString', op: 'exists', value: true }, subject), false);
    assert.equal(evaluateLeaf({ field: 'labels.constructor', op: 'exists', value: true }, alert), false);
  });

  it('all leaves must hold; an empty list holds for every alert', () => {
    assert.equal(allLeavesHold([], alert), true);
    assert.equal(allLeavesHold([{ field: 'labels.env', op: 'eq', value: 'prod' }, { field: 'severity', op: 'in', value: ['high', 'critical'] }], alert), true);
    assert.equal(allLeavesHold([{ field: 'labels.env', op: 'eq', value: 'prod' }, { field: 'severity', op: 'eq', value: 'low' }], alert), false);
  });

  it('matches runs in linear time: a pattern that backtracks catastrophically elsewhere returns on a long input, on a thread ended if it has not within the bound', async () => {
    const subject = { ...alert, labels: { host: `${'a'.repeat(50_000)}b` } };
    const leaf = (value: string) => within(LINEAR_BOUND_MS, { evaluateLeaf: [CONDITIONS, 'evaluateLeaf'] }, (d, l: ConditionLeaf, s: ConditionSubject) => d.evaluateLeaf(l, s) as boolean, { field: 'labels.host', op: 'matches', value }, subject);
    assert.equal(await leaf('(a+)+$'), false);
    assert.equal(await leaf('^(a|aa)+b$'), true);
  });

  it('refuses unknown fields, values of the wrong type and invalid patterns, naming the path', () => {
    const bad: Array<[ConditionLeaf, string]> = [
      [{ field: 'labelz.env', op: 'eq', value: 'x' }, '/m/0/field'],
      [{ field: 'labels.', op: 'eq', value: 'x' }, '/m/0/field'],
      [{ field: 'payload', op: 'eq', value: 'x' }, '/m/0/field'],
      [{ field: 'labels.env', op: 'eq', value: ['x'] }, '/m/0/value'],
      [{ field: 'labels.env', op: 'eq' }, '/m/0/value'],
      [{ field: 'labels.env', op: 'in', value: 'x' }, '/m/0/value'],
      [{ field: 'labels.env', op: 'exists', value: 'yes' }, '/m/0/value'],
      [{ field: 'labels.env', op: 'matches', value: 'a(' }, '/m/0/value'],
      [{ field: 'labels.env', op: 'matches', value: '(a)\\1' }, '/m/0/value'],
      [{ field: 'labels.env', op: 'contains', value: true }, '/m/0/value'],
      [{ field: 'labels.env', op: 'matches', value: '[\\s\\S]{1000}x{1000}' }, '/m/0/value'],
    ];
    for (const [leaf, path] of bad) {
      const errors = validateLeaf(leaf, '/m/0');
      assert.deepEqual(errors.map((e) => e.path), [path], JSON.stringify(leaf));
    }
    assert.match(validateLeaf({ field: 'labels.env', op: 'matches', value: 'a(' }, '/m/0')[0]?.message ?? '', /regular expression/);
  });

  it('stores exists with its boolean', () => {
    assert.deepEqual(normalizeLeaf({ field: 'labels.env', op: 'exists' }), { field: 'labels.env', op: 'exists', value: true });
    assert.deepEqual(normalizeLeaf({ field: 'labels.env', op: 'exists', value: false }), { field: 'labels.env', op: 'exists', value: false });
    assert.deepEqual(normalizeLeaf({ field: 'labels.env', op: 'eq', value: 'x' }), { field: 'labels.env', op: 'eq', value: 'x' });
  });
});
