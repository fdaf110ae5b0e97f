import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fairShare, groupCap, nextPriority } from '../../src/infra/queue/fairness-fns.ts';
import { admit, begin, breakers, record, type BreakerPolicy, type Breakers } from '../../src/modules/notifications/breaker-fns.ts';

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
  /** One attempt to `host` begun and ended at `now`: answered (`up`) or not. */
  const once = (b: Breakers, host: string, up: boolean, now: number) => {
    begin(b, policy, host);
    record(b, policy, host, up, now);
  };
  const begun = (b: Breakers, host: string, n: number) => {
    for (let i = 0; i < n; i++) begin(b, policy, host);
  };

  it('opens after consecutive unanswered attempts, defers until the cool-down ends, then lets one probe through', () => {
    const b = breakers();
    for (let i = 0; i < 2; i++) once(b, 'dead:80', false, 0);
    assert.deepEqual(admit(b, policy, 'dead:80', 0), { ok: true });
    once(b, 'dead:80', false, 10);
    assert.deepEqual(admit(b, policy, 'dead:80', 20), { ok: false, retryAt: 1_010 });
    assert.deepEqual(admit(b, policy, 'other:80', 20), { ok: true }, 'other hosts are not affected');
    assert.deepEqual(admit(b, policy, 'dead:80', 1_010), { ok: true }, 'the probe');
    assert.deepEqual(admit(b, policy, 'dead:80', 1_020), { ok: false, retryAt: 1_510 }, 'one probe at a time');
  });

  it('a failed probe doubles the cool-down (up to the maximum); a successful one closes the breaker', () => {
    const b = breakers();
    for (let i = 0; i < 3; i++) once(b, 'h', false, 0);
    let now = 1_000;
    for (const expected of [2_000, 4_000, 4_000]) {
      assert.equal(admit(b, policy, 'h', now).ok, true);
      once(b, 'h', false, now);
      assert.deepEqual(admit(b, policy, 'h', now + 1), { ok: false, retryAt: now + expected });
      now += expected;
    }
    assert.equal(admit(b, policy, 'h', now).ok, true);
    once(b, 'h', true, now);
    assert.deepEqual(admit(b, policy, 'h', now + 1), { ok: true });
    assert.equal(b.size, 0);
  });

  it('an answer between failures resets the count', () => {
    const b = breakers();
    once(b, 'h', false, 0);
    once(b, 'h', false, 0);
    once(b, 'h', true, 0);
    once(b, 'h', false, 0);
    once(b, 'h', false, 0);
    assert.deepEqual(admit(b, policy, 'h', 1), { ok: true });
  });

  it('a host that has not answered yet gets at most `failures` attempts at once; once it answers, as many as are offered', () => {
    const b = breakers();
    begun(b, 'h', 3);
    assert.deepEqual(admit(b, policy, 'h', 0), { ok: false, busy: true }, 'three under way, none answered');
    assert.deepEqual(admit(b, policy, 'other', 0), { ok: true }, 'other hosts are not affected');
    record(b, policy, 'h', true, 1);
    for (let i = 0; i < 20; i++) {
      assert.deepEqual(admit(b, policy, 'h', 1), { ok: true }, `an answering host: attempt ${i + 3} at once`);
      begin(b, policy, 'h');
    }
    for (let i = 0; i < 22; i++) record(b, policy, 'h', true, 2);
    assert.equal(b.size, 0, 'a host with nothing under way and nothing against it is forgotten');
  });

  it('a host that stops answering: no attempt begins after its first timeout until fewer than `failures` are under way', () => {
    const b = breakers();
    once(b, 'h', true, 0);
    begun(b, 'h', 10);
    record(b, policy, 'h', false, 10);
    assert.deepEqual(admit(b, policy, 'h', 10), { ok: false, busy: true }, 'nine under way after a timeout');
    record(b, policy, 'h', false, 11);
    record(b, policy, 'h', false, 12);
    assert.deepEqual(admit(b, policy, 'h', 12), { ok: false, retryAt: 1_012 }, 'three timeouts in a row: the breaker is open');
    for (let i = 0; i < 7; i++) record(b, policy, 'h', false, 13);
    assert.deepEqual(admit(b, policy, 'h', 1_013), { ok: true }, 'the probe, a cool-down after the last of them');
  });

  it('an answer after a timeout lifts the bound again', () => {
    const b = breakers();
    once(b, 'h', true, 0);
    begun(b, 'h', 5);
    record(b, policy, 'h', false, 1);
    assert.equal(admit(b, policy, 'h', 1).ok, false);
    record(b, policy, 'h', true, 2);
    assert.deepEqual(admit(b, policy, 'h', 2), { ok: true });
  });

  it('a lost probe does not keep the host shut: another may go once the probe time has passed', () => {
    const b = breakers();
    for (let i = 0; i < 3; i++) once(b, 'h', false, 0);
    assert.equal(admit(b, policy, 'h', 1_000).ok, true);
    assert.equal(admit(b, policy, 'h', 1_499).ok, false);
    assert.equal(admit(b, policy, 'h', 1_500).ok, true);
  });
});
