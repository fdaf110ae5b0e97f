import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calendar, escapeText, eventUid, foldLine, icsTime } from '../../src/modules/schedules/ical-fns.ts';
import { addDays, weekdayOf, zoneClock } from '../../src/modules/schedules/zone-fns.ts';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns', 'UTC'];

describe('zone clock (offsets from luxon, remembered per day)', () => {
  it('Europe/Berlin readings around 2026-10-25 and 2027-03-28', () => {
    const berlin = zoneClock('Europe/Berlin');
    const at = (s: string) => new Date(berlin.instant({ year: Number(s.slice(0, 4)), month: Number(s.slice(5, 7)), day: Number(s.slice(8, 10)), hour: Number(s.slice(11, 13)), minute: Number(s.slice(14, 16)) })).toISOString();
    assert.equal(at('2026-10-25 01:30'), '2026-10-24T23:30:00.000Z');
    assert.equal(at('2026-10-25 02:30'), '2026-10-25T00:30:00.000Z', 'shown twice: the first instant');
    assert.equal(at('2026-10-25 03:00'), '2026-10-25T02:00:00.000Z');
    assert.equal(at('2027-03-28 01:59'), '2027-03-28T00:59:00.000Z');
    assert.equal(at('2027-03-28 02:00'), '2027-03-28T01:00:00.000Z', 'skipped: moved forward by the gap (03:00 CEST)');
    assert.equal(at('2027-03-28 02:30'), '2027-03-28T01:30:00.000Z');
    assert.equal(at('2027-03-28 03:00'), '2027-03-28T01:00:00.000Z');
    assert.deepEqual(berlin.wall(Date.parse('2026-10-25T00:30:00.000Z')), { year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0, millisecond: 0 });
    assert.deepEqual(berlin.wall(Date.parse('2026-10-25T01:30:00.000Z')), { year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0, millisecond: 0 });
    assert.equal(berlin.offset(Date.parse('2026-10-25T00:59:59.999Z')), 120);
    assert.equal(berlin.offset(Date.parse('2026-10-25T01:00:00.000Z')), 60);
  });

  it('calendar arithmetic rolls months and years; weekdays Monday = 1', () => {
    assert.deepEqual(addDays({ year: 2026, month: 12, day: 30, hour: 9, minute: 0 }, 3), { year: 2027, month: 1, day: 2, hour: 9, minute: 0, second: 0, millisecond: 0 });
    assert.deepEqual(addDays({ year: 2028, month: 3, day: 1, hour: 0, minute: 0 }, -1).day, 29);
    assert.equal(weekdayOf({ year: 2026, month: 10, day: 26, hour: 0, minute: 0 }), 1);
    assert.equal(weekdayOf({ year: 2026, month: 10, day: 25, hour: 23, minute: 59 }), 7);
    assert.deepEqual(addDays({ year: 50, month: 2, day: 28, hour: 0, minute: 0 }, 1), { year: 50, month: 3, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0 }, 'years 0–99 as they are');
    const liberia = zoneClock('Africa/Monrovia'); // −00:44:30 until 1972
    const t = Date.parse('1960-06-01T12:00:00Z');
    assert.equal(liberia.offset(t), -44.5);
    assert.equal(liberia.instant(liberia.wall(t)), t);
  });

  it('property: every reading and every instant agree with luxon, near DST changes most of all', () => {
    // Instants within a day of the changes of 2026–2027 (found by luxon), and anywhere.
    const changes = ZONES.flatMap((name) => {
      const zone = IANAZone.create(name);
      const out: number[] = [];
      for (let day = Date.parse('2026-01-01T00:00:00Z'); day < Date.parse('2028-01-01T00:00:00Z'); day += 86_400_000) {
        if (zone.offset(day) === zone.offset(day + 86_400_000)) continue;
        let [lo, hi] = [day, day + 86_400_000];
        while (hi - lo > 60_000) {
          const mid = lo + Math.floor((hi - lo) / 2);
          if (zone.offset(mid) === zone.offset(lo)) lo = mid;
          else hi = mid;
        }
        out.push(hi);
      }
      return out;
    });
    assert.ok(changes.length > 20);
    const instant = fc.oneof(
      fc.tuple(fc.constantFrom(...changes), fc.integer({ min: -36 * 60, max: 36 * 60 })).map(([c, m]) => c + m * 60_000),
      fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') }),
    );
    fc.assert(fc.property(fc.constantFrom(...ZONES), instant, (zone, t) => {
      const clock = zoneClock(zone);
      const dt = DateTime.fromMillis(t, { zone });
      assert.equal(clock.offset(t), dt.offset);
      const w = clock.wall(t);
      assert.deepEqual(w, { year: dt.year, month: dt.month, day: dt.day, hour: dt.hour, minute: dt.minute, second: dt.second, millisecond: dt.millisecond });
      const expected = Math.min(...DateTime.fromObject(w, { zone }).getPossibleOffsets().map((d) => d.toMillis()));
      assert.equal(clock.instant(w), expected, `${zone} ${JSON.stringify(w)}`);
      // The same reading shifted by whole minutes: hits readings that are skipped or shown twice.
      const shifted = addDays(w, 0);
      shifted.minute = (shifted.minute + 30) % 60;
      assert.equal(clock.instant(shifted), Math.min(...DateTime.fromObject(shifted, { zone }).getPossibleOffsets().map((d) => d.toMillis())));
    }), { numRuns: 1000 });
  });
});

describe('iCalendar text (RFC 5545)', () => {
  it('escapes TEXT: backslash, semicolon, comma, line breaks; drops control characters', () => {
    assert.equal(escapeText('a\\b;c,d\ne\r\nf\rg'), 'a\\\\b\\;c\\,d\\ne\\nf\\ng');
    assert.equal(escapeText('bell\u0007\ttab'), 'bell\ttab');
    assert.equal(escapeText('Ünïcødé 🚨'), 'Ünïcødé 🚨');
  });

  it('folds lines at 75 octets without splitting a UTF-8 sequence; unfolding restores the line', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
      const line = `SUMMARY:${escapeText(text)}`;
      const folded = foldLine(line);
      for (const l of folded.split('\r\n')) assert.ok(Buffer.byteLength(l, 'utf8') <= 75, l);
      assert.equal(folded.replace(/\r\n /g, ''), line);
      assert.ok(!folded.includes('\uFFFD') || line.includes('\uFFFD'));
    }));
    assert.equal(foldLine('x'.repeat(75)), 'x'.repeat(75));
    assert.equal(foldLine('x'.repeat(76)), `${'x'.repeat(75)}\r\n x`);
    assert.equal(foldLine('é'.repeat(40)), `${'é'.repeat(37)}\r\n ${'é'.repeat(3)}`); // 74 octets, then the rest
  });

  it('writes a calendar of UTC events with CRLF line ends and stable UIDs', () => {
    const uid = eventUid(['sch_1', 'usr_1', '1793001600000', 'layer', '0']);
    assert.equal(uid, eventUid(['sch_1', 'usr_1', '1793001600000', 'layer', '0']));
    assert.notEqual(uid, eventUid(['sch_1', 'usr_2', '1793001600000', 'layer', '0']));
    assert.match(uid, /^[0-9a-f]{32}@alertflow$/);
    assert.equal(icsTime(Date.parse('2026-11-21T10:00:00.123Z')), '20261121T100000Z');
    const text = calendar({
      name: 'Primary, EU; ops', timezone: 'Europe/Berlin', stamp: Date.parse('2026-11-21T10:00:00.000Z'),
      events: [{ uid, startsAt: Date.parse('2026-11-21T08:00:00.000Z'), endsAt: Date.parse('2026-11-22T08:00:00.000Z'), summary: 'On call: Ada', description: 'Primary, layer A' }],
    });
    assert.ok(text.endsWith('END:VCALENDAR\r\n'));
    assert.ok(!/[^\r]\n/.test(text), 'every line ends in CRLF');
    const lines = text.split('\r\n');
    assert.deepEqual(lines.slice(0, 9), [
      'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//AlertFlow//On-call schedule//EN', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH',
      'X-WR-CALNAME:Primary\\, EU\\; ops', 'X-WR-TIMEZONE:Europe/Berlin', 'BEGIN:VEVENT', `UID:${uid}`,
    ]);
    for (const l of ['DTSTAMP:20261121T100000Z', 'DTSTART:20261121T080000Z', 'DTEND:20261122T080000Z', 'SUMMARY:On call: Ada', 'DESCRIPTION:Primary\\, layer A', 'END:VEVENT']) {
      assert.ok(lines.includes(l), l);
    }
  });
});
