import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { advance, newTracker, openGaps, parseLastEventId, sseEvent } from '../../src/modules/live/live-fns.ts';

const rows = (...seqs: number[]) => seqs.map((seq) => ({ seq }));
const seqs = (r: Array<{ seq: number }>) => r.map((x) => x.seq);

describe('live events: the sequence tracker (PostgreSQL commits out of order)', () => {
  it('passes rows on in order and remembers the highest', () => {
    const t = newTracker(10);
    assert.deepEqual(seqs(advance(t, rows(11, 12, 13), 0, 5000)), [11, 12, 13]);
    assert.equal(t.high, 13);
    assert.deepEqual(seqs(advance(t, rows(12, 13), 0, 5000)), [], 'nothing twice');
  });

  it('holds a skipped number open, passes the late row on once when it commits, then forgets the gap', () => {
    const t = newTracker(10);
    assert.deepEqual(seqs(advance(t, rows(11, 13), 0, 5000)), [11, 13]);
    assert.deepEqual(openGaps(t, 10), [12]);
    assert.deepEqual(seqs(advance(t, rows(12, 14), 100, 5000)), [12, 14], 'the late row is passed on');
    assert.deepEqual(openGaps(t, 10), []);
    assert.deepEqual(seqs(advance(t, rows(12), 200, 5000)), [], 'and only once');
  });

  it('gives a gap up after the wait (a rolled-back transaction never fills it)', () => {
    const t = newTracker(0);
    advance(t, rows(1, 3), 0, 5000);
    advance(t, [], 4999, 5000);
    assert.deepEqual(openGaps(t, 10), [2]);
    advance(t, [], 5000, 5000);
    assert.deepEqual(openGaps(t, 10), []);
    assert.deepEqual(seqs(advance(t, rows(2), 6000, 5000)), [], 'a row below high after its gap was given up is not passed on');
  });

  it('does not track a hole too large to be in-flight transactions', () => {
    const t = newTracker(0);
    advance(t, rows(1_000_000), 0, 5000);
    assert.equal(t.high, 1_000_000);
    assert.equal(t.gaps.size, 0);
  });
});

describe('live events: the wire format', () => {
  it('writes an event with id, name and one line of JSON data', () => {
    assert.equal(sseEvent('alert.created', { id: 'a', title: 'two\nlines' }, 7), 'id: 7\nevent: alert.created\ndata: {"id":"a","title":"two\\nlines"}\n\n');
    assert.equal(sseEvent('reset', {}), 'event: reset\ndata: {}\n\n');
  });

  it('takes only sequence numbers as Last-Event-ID', () => {
    assert.equal(parseLastEventId('42'), 42);
    for (const bad of [undefined, '', '-1', '1e3', 'abc', '1'.repeat(16)]) assert.equal(parseLastEventId(bad), null);
  });
});
