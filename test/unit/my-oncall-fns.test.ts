import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { handoffAfter, myShifts } from '../../src/modules/schedules/my-oncall-fns.ts';
import type { Shift } from '../../src/modules/schedules/schedules-fns.ts';

const H = 3_600_000;
const shift = (userId: string, from: number, to: number, source: Shift['source'] = 'layer'): Shift =>
  ({ userId, startsAt: from * H, endsAt: to * H, source, layer: source === 'layer' ? 0 : null });

describe('my on-call: my shifts and who follows me', () => {
  it('names who takes over at the end of my shift, or nobody over a gap', () => {
    const s = [shift('ana', 0, 8), shift('bob', 8, 16), shift('ana', 20, 28)];
    assert.deepEqual(handoffAfter(s, 'ana', 8 * H), { userId: 'bob', startsAt: 8 * H });
    assert.deepEqual(handoffAfter(s, 'bob', 16 * H), { userId: null, startsAt: 16 * H });
    assert.deepEqual(handoffAfter(s, 'ana', 28 * H), { userId: null, startsAt: 28 * H });
  });

  it('reads my adjacent shifts as one stretch, and skips myself when finding who follows', () => {
    const s = [shift('ana', 0, 8), shift('ana', 8, 10, 'override'), shift('bob', 10, 16), shift('ana', 16, 24)];
    const mine = myShifts(s, 'ana', 5 * H);
    assert.deepEqual(mine.map((m) => [m.startsAt / H, m.endsAt / H, m.current, m.after.userId]), [[0, 10, true, 'bob'], [16, 24, false, null]]);
  });

  it('leaves out what ended, and says nothing for someone never on call', () => {
    const s = [shift('ana', 0, 8), shift('bob', 8, 16)];
    assert.deepEqual(myShifts(s, 'ana', 9 * H), []);
    assert.deepEqual(myShifts(s, 'cy', 0), []);
  });
});
