import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flapStep, isFlapChange, NO_FLAPS, settled, stable, type FlapRule, type FlapState } from '../../src/modules/alerts/flap-fns.ts';
import { namesField } from '../../src/modules/workflows/conditions-fns.ts';

const MIN = 60_000;
const rule: FlapRule = { threshold: 5, windowMs: 30 * MIN, stableMs: 30 * MIN };

/** The state after changes at these minutes, and the minute (if any) at which flapping started. */
function run(minutes: number[], r: FlapRule = rule, from: FlapState = NO_FLAPS): { state: FlapState; startedAt: number[] } {
  let state = from;
  const startedAt: number[] = [];
  for (const m of minutes) {
    const step = flapStep(state, m * MIN, r);
    state = step.state;
    if (step.started) startedAt.push(m);
  }
  return { state, startedAt };
}

describe('flap rule', () => {
  it('five changes within 30 minutes start flapping, at the fifth', () => {
    const { state, startedAt } = run([0, 5, 10, 15, 20]);
    assert.deepEqual(startedAt, [20]);
    assert.equal(state.flapping, true);
    assert.equal(state.since, 20 * MIN);
  });

  it('four changes do not, nor five spread over more than the window', () => {
    assert.equal(run([0, 5, 10, 15]).state.flapping, false);
    // 0 and 30 are 30 minutes apart: the change at 0 has left the window when the one at 30 comes.
    const spread = run([0, 10, 20, 25, 30]);
    assert.deepEqual(spread.startedAt, []);
    assert.deepEqual(spread.state.changes, [10, 20, 25, 30].map((m) => m * MIN), 'only the changes within the window are kept');
  });

  it('starts once: the changes while it flaps do not start it again, and keep it from settling', () => {
    const { state, startedAt } = run([0, 1, 2, 3, 4, 5, 6, 40]);
    assert.deepEqual(startedAt, [4]);
    assert.equal(state.since, 4 * MIN);
    assert.equal(state.lastChangeAt, 40 * MIN);
    assert.equal(settled(state, 69 * MIN, rule), false, '29 minutes after its last change');
    assert.equal(settled(state, 70 * MIN, rule), true, '30 minutes after its last change');
  });

  it('only a flapping state settles; once stable it counts from nothing and may flap again', () => {
    assert.equal(settled(run([0, 1]).state, 500 * MIN, rule), false);
    const calm = stable(run([0, 1, 2, 3, 4]).state);
    assert.equal(calm.flapping, false);
    assert.equal(calm.since, 4 * MIN, 'when the last flapping started is kept for its notice');
    assert.deepEqual(run([60, 61, 62, 63], rule, calm).startedAt, []);
    assert.deepEqual(run([60, 61, 62, 63, 64], rule, calm).startedAt, [64]);
  });

  it('follows the integration\'s own threshold and window', () => {
    const strict: FlapRule = { threshold: 3, windowMs: 5 * MIN, stableMs: 10 * MIN };
    assert.deepEqual(run([0, 1, 2], strict).startedAt, [2]);
    assert.deepEqual(run([0, 3, 6], strict).startedAt, [], 'the first change is out of a 5-minute window by the third');
    assert.equal(run([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], strict).state.changes.length, 3, 'no more changes are kept than the threshold needs');
  });

  it('counts an alert of an integration opening or resolving, nothing else', () => {
    const of = (status: string, integration_id: string | null = 'int_1') => ({ status, integration_id });
    assert.equal(isFlapChange(null, of('firing')), true, 'a new alert: the fingerprint fires (again)');
    assert.equal(isFlapChange(null, of('suppressed')), true);
    assert.equal(isFlapChange({ status: 'firing' }, of('resolved')), true);
    assert.equal(isFlapChange({ status: 'acknowledged' }, of('resolved')), true);
    assert.equal(isFlapChange({ status: 'firing' }, of('acknowledged')), false);
    assert.equal(isFlapChange({ status: 'firing' }, of('firing')), false, 'a repeat');
    assert.equal(isFlapChange({ status: 'resolved' }, of('resolved')), false);
    assert.equal(isFlapChange(null, of('firing', null)), false, 'an alert of no integration (the API) never flaps');
  });

  it('a workflow names `flapping` in any of its conditions', () => {
    const leaf = { field: 'flapping', op: 'eq' as const, value: 'true' };
    assert.equal(namesField(null, 'flapping'), false);
    assert.equal(namesField(leaf, 'flapping'), true);
    assert.equal(namesField({ all: [{ field: 'severity', op: 'eq', value: 'high' }, { not: { any: [leaf] } }] }, 'flapping'), true);
    assert.equal(namesField({ all: [{ field: 'severity', op: 'eq', value: 'high' }] }, 'flapping'), false);
  });
});
