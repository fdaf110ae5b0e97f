import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limiterFactory } from '../../src/infra/rate-limit.ts';
import { TestClock } from '../support/harness.ts';

describe('rate limiter (in memory)', () => {
  it('a point given back goes to the window it was taken from, not the one running when it is given back', async () => {
    const clock = new TestClock();
    const limiter = limiterFactory(clock, undefined).create('unit-refund', 2, 60);
    const countedAt = clock.now();
    await limiter.consume('k');
    clock.advance(60_000);
    await limiter.refund('k', countedAt);
    assert.equal((await limiter.peek('k')).remaining, 2, 'the new window is untouched: no extra attempt in it');
    await limiter.consume('k');
    await limiter.consume('k');
    assert.equal((await limiter.consume('k')).allowed, false);
    await limiter.refund('k');
    assert.equal((await limiter.peek('k')).remaining, 0, 'without a time: the running window');
  });
});
