import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fairShare, groupCap, nextPriority } from '../../src/infra/queue/fairness-fns.ts';
import { admit, breakers, record, type BreakerPolicy } from '../../src/modules/notifications/breaker-fns.ts';

describe('fair priorities', () => {
  it('puts a quiet organization\'s job ahead of a noisy one\'s backlog', () => {
    const share = fairShare(60_000);
    const noisy = Array.from({ length: 4000 }, () => nextPriority(share, ['A'], 1_000));
    assert.equal(noisy[0], 0);
    assert.ok((noisy.at(-1) as number) <= -3999);
    const quiet = nextPriority(share, ['B'], 1_001);
    assert.equal(quiet, 0);
    // Taken highest first: B's job comes before all but A's very first one.
    assert.equal(noisy.filter((p) => p >= quiet).length, 1);
  });

  it('forgives a burst as time passes (the count halves every half-life)', () => {
    const share = fairShare(10_000);
    for (let i = 0; i < 1000; i++) nextPriority(share, ['A'], 0);
    assert.equal(nextPriority(share, ['A'], 10_000), -500);
    assert.ok(nextPriority(share, ['A'], 100_000) > -2);
  });

  it('adds the target\'s count to the organization\'s, so one target of an organization does not starve its others', () => {
    const share = fairShare();
    for (let i = 0; i < 100; i++) nextPriority(share, ['A', 'A|slow'], 0);
    const other = nextPriority(share, ['A', 'A|other'], 0);
    const slow = nextPriority(share, ['A', 'A|slow'], 0);
    assert.ok(other > slow, `${other} > ${slow}`);
  });

  it('caps an organization at all but a quarter of the workers, keeping at least one free when there are two or more', () => {
    assert.deepEqual([1, 2, 3, 4, 8, 10].map(groupCap), [1, 1, 2, 3, 6, 8]);
  });
});

describe('circuit breaker per host', () => {
  const policy: BreakerPolicy = { failures: 3, coolDownMs: 1_000, maxCoolDownMs: 4_000, probeMs: 500 };

  it('opens after consecutive unanswered attempts, defers until the cool-down ends, then lets one probe through', () => {
    const b = breakers();
    for (let i = 0; i < 2; i++) record(b, policy, 'dead:80', false, 0);
    assert.deepEqual(admit(b, policy, 'dead:80', 0), { ok: true });
    record(b, policy, 'dead:80', false, 10);
    assert.deepEqual(admit(b, policy, 'dead:80', 20), { ok: false, retryAt: 1_010 });
    assert.deepEqual(admit(b, policy, 'other:80', 20), { ok: true }, 'other hosts are not affected');
    assert.deepEqual(admit(b, policy, 'dead:80', 1_010), { ok: true }, 'the probe');
    assert.deepEqual(admit(b, policy, 'dead:80', 1_020), { ok: false, retryAt: 1_510 }, 'one probe at a time');
  });

  it('a failed probe doubles the cool-down (up to the maximum); a successful one closes the breaker', () => {
    const b = breakers();
    for (let i = 0; i < 3; i++) record(b, policy, 'h', false, 0);
    let now = 1_000;
    for (const expected of [2_000, 4_000, 4_000]) {
      assert.equal(admit(b, policy, 'h', now).ok, true);
      record(b, policy, 'h', false, now);
      assert.deepEqual(admit(b, policy, 'h', now + 1), { ok: false, retryAt: now + expected });
      now += expected;
    }
    assert.equal(admit(b, policy, 'h', now).ok, true);
    record(b, policy, 'h', true, now);
    assert.deepEqual(admit(b, policy, 'h', now + 1), { ok: true });
    assert.equal(b.size, 0);
  });

  it('an answer between failures resets the count', () => {
    const b = breakers();
    record(b, policy, 'h', false, 0);
    record(b, policy, 'h', false, 0);
    record(b, policy, 'h', true, 0);
    record(b, policy, 'h', false, 0);
    record(b, policy, 'h', false, 0);
    assert.deepEqual(admit(b, policy, 'h', 1), { ok: true });
  });

  it('a lost probe does not keep the host shut: another may go once the probe time has passed', () => {
    const b = breakers();
    for (let i = 0; i < 3; i++) record(b, policy, 'h', false, 0);
    assert.equal(admit(b, policy, 'h', 1_000).ok, true);
    assert.equal(admit(b, policy, 'h', 1_499).ok, false);
    assert.equal(admit(b, policy, 'h', 1_500).ok, true);
  });
});
