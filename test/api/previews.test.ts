import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

// The harness clock starts at Saturday 2026-11-21T10:00:00Z.
eachStore('previews before saving', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  async function team(): Promise<{ org: Org; ada: string; bob: string }> {
    const org = await h.newOrg();
    const add = async (name: string) => (await h.c.users.add(org.id, { email: `${name.toLowerCase()}@acme.test`, name, role: 'member' })).id;
    return { org, ada: await add('Ada'), bob: await add('Bob') };
  }

  const daily = (users: string[], extra: Record<string, unknown> = {}) => ({
    name: 'Primary',
    layers: [{ name: 'Days', startsAt: '2026-11-20T09:00:00Z', rotation: 'daily', users }],
    ...extra,
  });

  describe('POST /schedules/preview', () => {
    it('gives who is on call now and the next shifts, and stores nothing', async () => {
      const t = await team();
      const r = await h.req('POST', '/api/v1/schedules/preview', { key: t.org.key, body: daily([t.ada, t.bob]) });
      assert.equal(r.status, 200, r.raw);
      const p = r.body.data;
      assert.deepEqual(p.onCall, {
        user: { id: t.bob, name: 'Bob', email: 'bob@acme.test' }, startsAt: '2026-11-21T09:00:00.000Z', endsAt: '2026-11-22T09:00:00.000Z',
      });
      assert.equal(p.timezone, 'UTC');
      assert.equal(p.from, '2026-11-21T10:00:00.000Z');
      assert.equal(p.to, '2026-11-28T10:00:00.000Z');
      assert.equal(p.shifts.length, 8);
      assert.deepEqual(p.shifts.slice(0, 2), [
        { userId: t.bob, startsAt: '2026-11-21T09:00:00.000Z', endsAt: '2026-11-22T09:00:00.000Z', source: 'layer', layerName: 'Days' },
        { userId: t.ada, startsAt: '2026-11-22T09:00:00.000Z', endsAt: '2026-11-23T09:00:00.000Z', source: 'layer', layerName: 'Days' },
      ]);
      assert.equal((await h.req('GET', '/api/v1/schedules', { key: t.org.key })).body.meta.total, 0);
    });

    it('shows an override taking over, within the range asked for', async () => {
      const t = await team();
      const body = daily([t.ada, t.bob], { overrides: [{ userId: t.ada, startsAt: '2026-11-21T08:00:00Z', endsAt: '2026-11-21T12:00:00Z' }] });
      const r = await h.req('POST', '/api/v1/schedules/preview?from=2026-11-21T00:00:00Z&to=2026-11-21T18:00:00Z', { key: t.org.key, body });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.onCall.user.id, t.ada);
      assert.equal(r.body.data.onCall.endsAt, '2026-11-21T12:00:00.000Z');
      assert.deepEqual(r.body.data.shifts.map((s: Record<string, string>) => [s.userId, s.source, s.startsAt, s.endsAt]), [
        [t.ada, 'layer', '2026-11-20T09:00:00.000Z', '2026-11-21T08:00:00.000Z'],
        [t.ada, 'override', '2026-11-21T08:00:00.000Z', '2026-11-21T12:00:00.000Z'],
        [t.bob, 'layer', '2026-11-21T12:00:00.000Z', '2026-11-22T09:00:00.000Z'],
      ]);
    });

    it('refuses a body exactly as create does: bad zone, shiftHours, a user of another organization, a range too long', async () => {
      const t = await team();
      const them = await team();
      const bads = [
        daily([t.ada], { timezone: 'Mars/Olympus' }),
        { name: 'X', layers: [{ name: 'L', startsAt: '2026-11-20T09:00:00Z', rotation: 'custom', users: [t.ada] }] },
        daily([t.ada, them.bob]),
        { name: 'X', extra: true },
      ];
      for (const body of bads) {
        const preview = await h.req('POST', '/api/v1/schedules/preview', { key: t.org.key, body });
        const create = await h.req('POST', '/api/v1/schedules', { key: t.org.key, body });
        assert.equal(preview.status, 400, preview.raw);
        assert.deepEqual(preview.body, create.body);
      }
      const long = await h.req('POST', '/api/v1/schedules/preview?from=2026-11-21T00:00:00Z&to=2027-03-01T00:00:00Z', { key: t.org.key, body: daily([t.ada]) });
      assert.equal(long.status, 400, long.raw);
      assert.equal(long.body.details[0].path, '/to');
      assert.equal((await h.req('GET', '/api/v1/schedules', { key: t.org.key })).body.meta.total, 0);
    });
  });

  describe('POST /suppression/preview', () => {
    const window = (extra: Record<string, unknown> = {}) => ({ name: 'Maintenance', startsAt: '2026-11-21T09:00:00Z', endsAt: '2026-11-21T11:00:00Z', ...extra });

    it('lists the open alerts the matchers hold, newest first, not resolved ones nor other organizations\', and stores nothing', async () => {
      const org = await h.newOrg();
      const integ = await h.integration(org);
      const sent = async (title: string, env: string) => {
        const r = await h.ingest(integ.path, { title, severity: 'high', labels: { env } });
        h.clock.advance(1000);
        return r.body.data.alerts[0].alertId as string;
      };
      const first = await sent('Disk full', 'prod');
      await sent('Dev noise', 'dev');
      const gone = await sent('Fixed already', 'prod');
      const second = await sent('CPU hot', 'prod');
      assert.equal((await h.req('POST', `/api/v1/alerts/${gone}/resolve`, { key: org.key })).status, 200);
      const other = await h.newOrg();
      await h.ingest((await h.integration(other)).path, { title: 'Their prod alert', severity: 'high', labels: { env: 'prod' } });

      const r = await h.req('POST', '/api/v1/suppression/preview', { key: org.key, body: window({ matchers: [{ field: 'labels.env', op: 'eq', value: 'prod' }] }) });
      assert.equal(r.status, 200, r.raw);
      assert.deepEqual(r.body.data.alerts.map((a: { id: string }) => a.id), [second, first]);
      assert.equal(r.body.data.alerts[0].title, 'CPU hot');
      assert.equal(r.body.data.complete, true);
      assert.equal(r.body.data.active, true);
      assert.equal((await h.req('GET', '/api/v1/suppression', { key: org.key })).body.meta.total, 0);
      assert.equal((await h.req('GET', `/api/v1/alerts/${first}`, { key: org.key })).body.data.status, 'firing');
    });

    it('gives the next occurrences of a recurring window in its time zone', async () => {
      const org = await h.newOrg();
      const r = await h.req('POST', '/api/v1/suppression/preview', {
        key: org.key,
        body: window({ startsAt: '2026-11-22T02:00:00+01:00', endsAt: '2026-11-22T04:00:00+01:00', timezone: 'Europe/Berlin', recurrence: 'FREQ=WEEKLY;BYDAY=SU' }),
      });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.active, false);
      assert.deepEqual(r.body.data.nextOccurrences.map((o: { startsAt: string }) => o.startsAt), [
        '2026-11-22T01:00:00.000Z', '2026-11-29T01:00:00.000Z', '2026-12-06T01:00:00.000Z', '2026-12-13T01:00:00.000Z', '2026-12-20T01:00:00.000Z',
      ]);
      assert.deepEqual(r.body.data.alerts, []);
    });

    it('refuses a body exactly as create does: bad RRULE, matcher, zone, a client of another organization', async () => {
      const org = await h.newOrg();
      const other = await h.newOrg();
      const theirClient = await h.req('POST', '/api/v1/clients', { key: other.key, body: { name: 'Theirs', slug: 'theirs' } });
      assert.equal(theirClient.status, 201, theirClient.raw);
      const bads = [
        window({ recurrence: 'FREQ=SOMETIMES' }),
        window({ matchers: [{ field: 'secret', op: 'eq', value: 'x' }] }),
        window({ timezone: 'Nowhere/Land' }),
        window({ endsAt: '2026-11-21T08:00:00Z' }),
        window({ clientId: theirClient.body.data.id }),
      ];
      for (const body of bads) {
        const preview = await h.req('POST', '/api/v1/suppression/preview', { key: org.key, body });
        const create = await h.req('POST', '/api/v1/suppression', { key: org.key, body });
        assert.equal(preview.status, 400, preview.raw);
        assert.deepEqual(preview.body, create.body);
      }
    });
  });
});
