import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { addPerson, asPerson, signIn, type Session } from '../support/sessions.ts';
import { eachStore } from '../support/stores.ts';

/**
 * Calendar feeds a calendar app can subscribe to without a header (a member's own shifts, a schedule's), and
 * "my on-call": issued, rotated, revoked, never stored in clear; on both stores, one harness each.
 */

type Rec = Record<string, any>;
const H = 3_600_000;
const PASSWORD = 'a long enough password';

eachStore('calendar feeds and my on-call', { together: true }, (kind) => {
  let h: Harness;
  let org: Org;
  let ana: Session;
  let bob: Session;
  let schedule: Rec;
  before(async () => {
    h = await startHarness(kind);
    org = h.org;
    await addPerson(h, org.id, 'ana@acme.test', PASSWORD, 'member');
    await addPerson(h, org.id, 'bob@acme.test', PASSWORD, 'member');
    [ana, bob] = [await signIn(h, 'ana@acme.test', PASSWORD), await signIn(h, 'bob@acme.test', PASSWORD)];
    // Eight-hour shifts from two hours ago: Ana now, then Bob, then Ana again.
    schedule = (await h.ok('POST', '/api/v1/schedules', {
      body: { name: 'Primary', timezone: 'Europe/Berlin', layers: [{ name: 'Days', startsAt: new Date(h.clock.now() - 2 * H).toISOString(), rotation: 'custom', shiftHours: 8, users: [ana.userId, bob.userId] }] },
    }, 201)).data;
  });
  after(() => h.close());

  /** A feed URL fetched as a calendar app does: no header at all. */
  const fetchFeed = (url: string) => h.app.inject({ method: 'GET', url: new URL(url).pathname });
  const events = (ics: string) => ics.split('BEGIN:VEVENT').length - 1;

  it('a member issues their own feed: their shifts only, as iCalendar, fetched without a header', async () => {
    const r = await asPerson(h, ana, 'POST', '/api/v1/users/me/calendar-feed');
    assert.equal(r.status, 201, r.raw);
    assert.match(r.body.data.url, /^http:\/\/alertflow\.test\/api\/calendar\/afcal_[\w-]{40,}\.ics$/);
    assert.equal(r.body.data.webcalUrl, r.body.data.url.replace('http:', 'webcal:'));
    const feed = await fetchFeed(r.body.data.url);
    assert.equal(feed.statusCode, 200, feed.body);
    assert.match(String(feed.headers['content-type']), /^text\/calendar/);
    assert.match(feed.body, /^BEGIN:VCALENDAR\r\n/);
    assert.match(feed.body, /SUMMARY:On call: Primary/);
    // Ana's shifts only: every other one of the rotation, a week back to 60 days ahead.
    const all = events(await (await h.app.inject({ method: 'GET', url: `/api/v1/schedules/${schedule.id}/calendar.ics`, headers: { authorization: `Bearer ${org.key}` } })).body);
    assert.ok(events(feed.body) > 10 && Math.abs(events(feed.body) * 2 - all) <= 2, `${events(feed.body)} of ${all}`);
    assert.ok(!feed.body.includes('bob'), 'none of Bob\'s shifts');
    const status = await asPerson(h, ana, 'GET', '/api/v1/users/me/calendar-feed');
    assert.equal(status.body.data.active, true);
    assert.notEqual(status.body.data.lastUsedAt, null, 'the fetch is noted');
  });

  it('only the token\'s hash is kept; issuing again replaces the URL; revoking ends it; each audited', async () => {
    const first = (await asPerson(h, bob, 'POST', '/api/v1/users/me/calendar-feed')).body.data.url as string;
    const token = (/afcal_[\w-]+/.exec(first) as RegExpExecArray)[0];
    const stored = await h.c.store.db.selectFrom('calendar_feeds').selectAll().where('subject_id', '=', bob.userId).execute();
    assert.equal(stored.length, 1);
    assert.ok(!JSON.stringify(stored).includes(token.slice(6, 20)), 'the token is not stored');
    const second = (await asPerson(h, bob, 'POST', '/api/v1/users/me/calendar-feed')).body.data.url as string;
    assert.notEqual(second, first);
    assert.equal((await fetchFeed(first)).statusCode, 401, 'the old URL stopped working');
    assert.equal((await fetchFeed(second)).statusCode, 200);
    assert.equal((await asPerson(h, bob, 'DELETE', '/api/v1/users/me/calendar-feed')).status, 204);
    assert.equal((await fetchFeed(second)).statusCode, 401);
    assert.equal((await asPerson(h, bob, 'DELETE', '/api/v1/users/me/calendar-feed')).status, 404);
    assert.equal((await asPerson(h, bob, 'GET', '/api/v1/users/me/calendar-feed')).body.data.active, false);
    const audit = (await h.ok('GET', '/api/v1/audit-log?limit=100')).data.filter((e: Rec) => e.action.startsWith('calendar_feed.') && e.target?.id === bob.userId);
    assert.deepEqual(audit.map((e: Rec) => e.action).sort(), ['calendar_feed.created', 'calendar_feed.revoked', 'calendar_feed.rotated']);
    for (const bad of ['/api/calendar/afcal_nope.ics', `/api/calendar/${token}`, '/api/calendar/x.ics']) {
      const r = await h.app.inject({ method: 'GET', url: bad });
      assert.equal(r.statusCode, 401, bad);
      assert.ok(!r.body.includes('afcal_'), 'the answer does not echo the token');
    }
  });

  it('a schedule\'s feed is issued by whoever may edit it, holds every shift, and ends with the schedule', async () => {
    assert.equal((await asPerson(h, ana, 'POST', `/api/v1/schedules/${schedule.id}/calendar-feed`)).status, 403, 'a member may not');
    const r = await h.req('POST', `/api/v1/schedules/${schedule.id}/calendar-feed`);
    assert.equal(r.status, 201, r.raw);
    const feed = await fetchFeed(r.body.data.url);
    assert.equal(feed.statusCode, 200);
    assert.match(feed.body, /SUMMARY:On call: bob/);
    assert.match(feed.body, /SUMMARY:On call: ana/);
    assert.equal((await asPerson(h, ana, 'GET', `/api/v1/schedules/${schedule.id}/calendar-feed`)).body.data.active, true);
    const other = await h.newOrg('Other');
    assert.equal((await h.req('POST', `/api/v1/schedules/${schedule.id}/calendar-feed`, { key: other.key })).status, 404);
    const gone = (await h.ok('POST', '/api/v1/schedules', { body: { name: 'Temporary' } }, 201)).data;
    const url = (await h.ok('POST', `/api/v1/schedules/${gone.id}/calendar-feed`, {}, 201)).data.url;
    assert.equal((await fetchFeed(url)).statusCode, 200);
    await h.ok('DELETE', `/api/v1/schedules/${gone.id}`, {}, 204);
    assert.equal((await fetchFeed(url)).statusCode, 401);
  });

  it('my on-call: my shift now and my next ones, each with who follows; an API key belongs to nobody', async () => {
    const r = await asPerson(h, ana, 'GET', '/api/v1/users/me/oncall');
    assert.equal(r.status, 200, r.raw);
    const [now, next] = r.body.data.shifts as Rec[];
    const start = h.clock.now() - 2 * H;
    assert.deepEqual([now?.scheduleName, now?.timezone, now?.current, now?.startsAt, now?.endsAt], ['Primary', 'Europe/Berlin', true, new Date(start).toISOString(), new Date(start + 8 * H).toISOString()]);
    assert.deepEqual([now?.next.user?.email, now?.next.startsAt], ['bob@acme.test', now?.endsAt]);
    assert.deepEqual([next?.current, next?.startsAt], [false, new Date(start + 16 * H).toISOString()]);
    assert.equal((r.body.data.shifts as Rec[]).length, 20, 'a month holds 45 of them: the first 20');
    assert.equal((await h.req('GET', '/api/v1/users/me/oncall')).status, 403);
    assert.equal((await h.req('POST', '/api/v1/users/me/calendar-feed')).status, 403);
  });

  it('a removed member\'s feed stops working', async () => {
    const id = await addPerson(h, org.id, 'cy@acme.test', PASSWORD, 'member');
    const cy = await signIn(h, 'cy@acme.test', PASSWORD);
    const url = (await asPerson(h, cy, 'POST', '/api/v1/users/me/calendar-feed')).body.data.url as string;
    assert.equal((await fetchFeed(url)).statusCode, 200);
    await h.ok('DELETE', `/api/v1/users/${id}`, {}, 204);
    assert.equal((await fetchFeed(url)).statusCode, 401);
  });
});
