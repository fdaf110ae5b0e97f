import fc from 'fast-check';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WORK_UNITS_PER_REQUEST } from '../../src/lib/work-budget.ts';
import { datesMade } from '../support/date-meter.ts';
import { startHarness, type Harness, type Res } from '../support/harness.ts';
import { STORE_KINDS } from '../support/stores.ts';

/**
 * Issue 25 row 1 through the API: a recurrence a tenant writes into a suppression window or a schedule
 * costs every request at most one work budget, and one that cannot fit is refused with a 400 in the
 * envelope. Work is counted as the Dates made during the request (rrule makes one per candidate time),
 * never timed; the stall it caused (12–14 s for every organization) is measured by
 * bench/recurrence-budget.ts against a real server.
 */
const DATES_PER_REQUEST = 2 * WORK_UNITS_PER_REQUEST;
const DAY = 86_400_000;
const all = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => i + from).join(',');
const BOMB = `FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=${all(0, 23)};BYMINUTE=${all(0, 59)};BYSECOND=${all(0, 59)}`;
const wide = Array.from({ length: 12 }, (_, i) => ({ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: `${String(2 * i).padStart(2, '0')}:00`, to: `${String((2 * i + 2) % 24).padStart(2, '0')}:00` }));

for (const kind of STORE_KINDS) {
  describe(`recurrence bombs (${kind})`, () => {
    let h: Harness;
    let userId: string;
    before(async () => {
      h = await startHarness(kind);
      userId = h.org.ownerId;
    });
    after(() => h.close());

    /** A request, with the Dates it made; every one of them must stay within one request's work. */
    const metered = async (method: string, url: string, opts: Parameters<Harness['req']>[2] = {}): Promise<Res> => {
      const { value, dates } = await datesMade(() => h.req(method, url, opts));
      assert.ok(dates <= DATES_PER_REQUEST, `${method} ${url} made ${dates} dates`);
      return value;
    };
    const iso = (t: number) => new Date(t).toISOString();
    const startsAt = () => Math.floor((h.clock.now() - 60_000) / 1000) * 1000;

    it('the row 1 rule: preview and create are 400 at /recurrence, nothing stored', async () => {
      const body = { name: 'bomb', startsAt: iso(startsAt()), endsAt: iso(startsAt() + 1000), recurrence: BOMB };
      for (const url of ['/api/v1/suppression/preview', '/api/v1/suppression']) {
        const r = await metered('POST', url, { body });
        assert.equal(r.status, 400, r.raw);
        assert.deepEqual([r.body.code, r.body.details[0].path], ['VALIDATION_ERROR', '/recurrence']);
        assert.match(r.body.details[0].message, /candidate times per year/);
      }
      assert.equal((await h.ok('GET', '/api/v1/suppression')).meta.total, 0);
    });

    it('such a window stored before the check: reads and ingest into its organization answer, each within one budget', async () => {
      const org = await h.newOrg('Stored bomb');
      const at = startsAt();
      await h.c.store.db.insertInto('suppression_windows').values({
        id: 'sup_bomb', org_id: org.id, name: 'old bomb', description: null, starts_at: at, ends_at: at + 1000, matchers: '[]',
        recurrence: BOMB, timezone: 'UTC', client_id: null, created_at: at, updated_at: at,
      }).execute();
      const one = await metered('GET', '/api/v1/suppression/sup_bomb', { key: org.key });
      assert.equal(one.status, 200, one.raw);
      assert.deepEqual(one.body.data.nextOccurrences, [], 'not evaluated: one period of it is over the budget');
      assert.equal((await metered('GET', '/api/v1/suppression', { key: org.key })).status, 200);
      const { path } = await h.integration(org);
      const r = await metered('POST', path, { key: null, body: { title: 'x', severity: 'low' } });
      assert.equal(r.status, 200, r.raw);
    });

    it('schedules: one that cannot be expanded over the longest range is refused; one stored before answers within one budget', async () => {
      const layers = Array.from({ length: 10 }, (_, i) => ({ name: `l${i}`, startsAt: iso(h.clock.now() - 400 * DAY), rotation: 'hourly', users: Array(50).fill(userId), restrictions: wide }));
      const overrides = Array.from({ length: 200 }, (_, i) => ({ userId, startsAt: iso(h.clock.now() + i * 11 * 3_600_000), endsAt: iso(h.clock.now() + i * 11 * 3_600_000 + 1000) }));
      for (const url of ['/api/v1/schedules/preview', '/api/v1/schedules']) {
        const r = await metered('POST', url, { body: { name: 'bomb', timezone: 'Europe/Berlin', layers, overrides } });
        assert.equal(r.status, 400, r.raw);
        assert.equal(r.body.details[0].path, '/layers');
      }
      const at = h.clock.now();
      await h.c.store.db.insertInto('schedules').values({
        id: 'sch_bomb', org_id: h.org.id, name: 'old bomb', description: null, timezone: 'Europe/Berlin',
        layers: JSON.stringify(layers.map((l) => ({ ...l, shiftHours: null }))), overrides: JSON.stringify(overrides), handoff_notices: 0, created_at: at, updated_at: at,
      }).execute();
      const shifts = await metered('GET', `/api/v1/schedules/sch_bomb/shifts?from=${iso(at)}&to=${iso(at + 93 * DAY)}`);
      assert.equal(shifts.status, 400, shifts.raw);
      assert.equal(shifts.body.details[0].path, '/to');
      const now = await metered('GET', '/api/v1/schedules/current-oncall?scheduleId=sch_bomb');
      assert.equal(now.status, 200, now.raw);
      assert.equal(now.body.data[0].user.id, userId, 'who is on call is always answered');
      assert.deepEqual([now.body.data[0].startsAt, now.body.data[0].endsAt], [null, null], 'the bounds of the stretch: past the budget');
    });

    it('property: generated hostile rules into preview and window creation answer 2xx or 400 in the envelope, within one budget', { timeout: 120_000 }, async () => {
      const byParts = fc.record({
        BYMONTH: fc.constantFrom('', all(1, 12)), BYMONTHDAY: fc.constantFrom('', all(1, 31), '-1'), BYDAY: fc.constantFrom('', 'MO,TU,WE,TH,FR,SA,SU', '1MO,-1FR'),
        BYHOUR: fc.constantFrom('', all(0, 23)), BYMINUTE: fc.constantFrom('', all(0, 59), '0,30'), BYSECOND: fc.constantFrom('', all(0, 59)),
        BYSETPOS: fc.constantFrom('', '1', '-1', all(1, 366)), BYYEARDAY: fc.constantFrom('', all(1, 366)), BYWEEKNO: fc.constantFrom('', all(1, 53)),
      });
      const rule = fc.tuple(fc.constantFrom('YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY'), byParts)
        .map(([freq, parts]) => [`FREQ=${freq}`, ...Object.entries(parts).filter(([, v]) => v !== '').map(([k, v]) => `${k}=${v}`)].join(';'));
      await fc.assert(fc.asyncProperty(rule, async (recurrence) => {
        const body = { name: 'generated', startsAt: iso(startsAt()), endsAt: iso(startsAt() + 3_600_000), recurrence };
        for (const url of ['/api/v1/suppression/preview', '/api/v1/suppression']) {
          const r = await metered('POST', url, { body });
          assert.ok([200, 201, 400].includes(r.status), `${url} ${recurrence}: ${r.raw}`);
          if (r.status === 400) assert.equal(r.body.details[0].path, '/recurrence');
        }
      }), { numRuns: 12 });
      assert.equal((await metered('GET', '/api/v1/suppression?limit=100')).status, 200);
    });
  });
}
