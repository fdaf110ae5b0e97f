import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId, orderedId } from '../../src/lib/ids.ts';

describe('record ids', () => {
  it('never repeat, across many refills of the random pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50_000; i++) seen.add(newId('alt')).add(orderedId('alt', 1_800_000_000_000));
    assert.equal(seen.size, 100_000);
  });

  it('carry 96 (newId) or 64 (orderedId) random bits after a readable prefix', () => {
    assert.match(newId('int'), /^int_[A-Za-z0-9_-]{16}$/);
    assert.match(orderedId('alt', 1_800_000_000_000), /^alt_[0-9a-z]{13}[A-Za-z0-9_-]{11}$/);
  });

  it('sort in creation order when time-ordered, also within one millisecond', () => {
    const ids = [orderedId('evt', 1_800_000_000_000), orderedId('evt', 1_800_000_000_000), orderedId('evt', 1_800_000_000_001)];
    assert.deepEqual([...ids].sort(), ids);
  });
});
