import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const q = (params: Record<string, string>): string => new URLSearchParams(params).toString();

eachStore('schedules API', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  interface Team { org: Org; ada: string; bob: string; cyd: string; dan: string }
  async function team(): Promise<Team> {
    const org = await h.newOrg();
    const add = async (name: string) => (await h.c.users.add(org.id, { email: `${(name.split(/[ ,]/)[0] as string).toLowerCase()}@acme.test`, name, role: 'member' })).id;
    return { org, ada: await add('Ada Lovelace'), bob: await add('Bob, the Builder'), cyd: await add('Cyd Charisse'), dan: await add('Dan Abramov') };
  }

  /** A daily rotation in Berlin handing over at 09:00 local time, from Friday 2026-10-23. */
  const berlinDaily = (t: Team, extra: Record<string, unknown> = {}) => ({
    name: 'Primary',
    timezone: 'Europe/Berlin',
    layers: [{ name: 'Follow the sun', startsAt: '2026-10-23T07:00:00Z', rotation: 'daily', users: [t.ada, t.bob, t.cyd] }],
    ...extra,
  });

  async function create(org: Org, body: Record<string, unknown>) {
    const r = await h.req('POST', '/api/v1/schedules', { key: org.key, body });
    assert.equal(r.status, 201, r.raw);
    return r.body.data as Record<string, any>;
  }

  /** A non-JSON response (the calendar feed), still checked against the OpenAPI document. */
  async function raw(url: string, key: string | null) {
    const r = await h.app.inject({ method: 'GET', url, headers: key === null ? {} : { authorization: `Bearer ${key}` } });
    h.openapi.check('GET', url, r.statusCode, r.body);
    return r;
  }

  it('POST: 201 with defaults filled in and instants normalized; GET returns it; the answer round-trips through PUT', async () => {
    const t = await team();
    const bare = await create(t.org, { name: 'Empty' });
    assert.match(bare.id, /^sch_/);
    assert.deepEqual(bare, {
      id: bare.id, name: 'Empty', description: null, timezone: 'UTC', layers: [], overrides: [], handoffNotices: false, createdAt: iso(h.clock.now()), updatedAt: iso(h.clock.now()),
    });
    const full = await create(t.org, berlinDaily(t, {
      description: 'EU hours',
      layers: [
        { name: 'Follow the sun', startsAt: '2026-10-23T09:00:00+02:00', rotation: 'daily', users: [t.ada, t.bob, t.cyd] },
        { name: 'Office', startsAt: '2026-10-23T07:00:00Z', rotation: 'custom', shiftHours: 12, users: [t.dan], restrictions: [{ days: ['mon', 'fri'], from: '22:00', to: '06:00' }] },
      ],
      overrides: [{ userId: t.dan, startsAt: '2026-11-21T09:00:00Z', endsAt: '2026-11-21T12:00:00Z' }],
    }));
    assert.deepEqual(full.layers, [
      { name: 'Follow the sun', startsAt: '2026-10-23T07:00:00.000Z', rotation: 'daily', shiftHours: null, users: [t.ada, t.bob, t.cyd], restrictions: [] },
      { name: 'Office', startsAt: '2026-10-23T07:00:00.000Z', rotation: 'custom', shiftHours: 12, users: [t.dan], restrictions: [{ days: ['mon', 'fri'], from: '22:00', to: '06:00' }] },
    ]);
    assert.deepEqual(full.overrides, [{ userId: t.dan, startsAt: '2026-11-21T09:00:00.000Z', endsAt: '2026-11-21T12:00:00.000Z' }]);
    assert.equal(full.description, 'EU hours');
    const got = await h.req('GET', `/api/v1/schedules/${full.id}`, { key: t.org.key });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, full);
    const { layers, overrides, timezone, name, description, handoffNotices } = full;
    const again = await h.req('PUT', `/api/v1/schedules/${full.id}`, { key: t.org.key, body: { layers, overrides, timezone, name, description, handoffNotices } });
    assert.equal(again.status, 200, again.raw);
    assert.deepEqual(again.body.data, full, 'what GET answers is a valid body that changes nothing');
  });

  it('GET lists newest first with keyset pages and a total', async () => {
    const t = await team();
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await create(t.org, { name: `S${i}` }));
      h.clock.advance(1000);
    }
    const first = await h.req('GET', '/api/v1/schedules?limit=2', { key: t.org.key });
    assert.equal(first.status, 200);
    assert.equal(first.body.meta.total, 3);
    assert.deepEqual(first.body.data.map((s: { name: string }) => s.name), ['S2', 'S1']);
    const next = await h.req('GET', `/api/v1/schedules?limit=2&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { key: t.org.key });
    assert.deepEqual(next.body.data.map((s: { name: string }) => s.name), ['S0']);
    assert.equal(next.body.meta.hasMore, false);
    assert.equal(next.body.meta.nextCursor, null);
  });

  it('PUT is partial and replaces layers and overrides whole; PATCH is a synonym; audit events are recorded', async () => {
    const t = await team();
    const keyId = (await h.req('GET', '/api/v1/api-keys', { key: t.org.key })).body.data[0].id;
    const s = await create(t.org, berlinDaily(t, { overrides: [{ userId: t.dan, startsAt: '2026-11-21T09:00:00Z', endsAt: '2026-11-21T12:00:00Z' }] }));
    h.clock.advance(60_000);
    const renamed = await h.req('PUT', `/api/v1/schedules/${s.id}`, { key: t.org.key, body: { name: 'Renamed', description: 'x' } });
    assert.equal(renamed.status, 200, renamed.raw);
    assert.deepEqual(renamed.body.data, { ...s, name: 'Renamed', description: 'x', updatedAt: iso(h.clock.now()) });
    const layers = [{ name: 'Hourly', startsAt: '2026-11-21T00:00:00.000Z', rotation: 'hourly', users: [t.bob] }];
    h.clock.advance(1000); // audit events of one instant have no order among themselves
    const patched = await h.req('PATCH', `/api/v1/schedules/${s.id}`, { key: t.org.key, body: { layers, overrides: [], timezone: 'America/New_York' } });
    assert.equal(patched.status, 200, patched.raw);
    assert.deepEqual(patched.body.data.layers, [{ ...layers[0], shiftHours: null, restrictions: [] }]);
    assert.deepEqual(patched.body.data.overrides, []);
    assert.equal(patched.body.data.timezone, 'America/New_York');
    assert.equal(patched.body.data.name, 'Renamed');
    assert.equal((await h.req('DELETE', `/api/v1/schedules/${s.id}`, { key: t.org.key })).status, 204);
    assert.equal((await h.req('GET', `/api/v1/schedules/${s.id}`, { key: t.org.key })).status, 404);
    assert.equal((await h.req('DELETE', `/api/v1/schedules/${s.id}`, { key: t.org.key })).status, 404);
    for (const [action, n] of [['schedule.created', 1], ['schedule.updated', 2], ['schedule.deleted', 1]] as const) {
      const r = await h.req('GET', `/api/v1/audit-log?action=${action}`, { key: t.org.key });
      assert.equal(r.body.data.length, n, action);
      assert.deepEqual(r.body.data[0].target, { type: 'schedule', id: s.id });
      assert.deepEqual(r.body.data[0].actor, { type: 'api_key', id: keyId });
    }
    const updated = await h.req('GET', '/api/v1/audit-log?action=schedule.updated', { key: t.org.key });
    assert.deepEqual(updated.body.data[0].metadata.changed, ['layers', 'overrides', 'timezone']);
  });

  it('400 names the path: custom without shiftHours, shiftHours elsewhere, users of another organization, bad zones, times and limits; nothing is stored', async () => {
    const t = await team();
    const other = await team();
    const s = await create(t.org, berlinDaily(t));
    const layer = (l: Record<string, unknown>) => ({ name: 'L', startsAt: '2026-11-02T08:00:00Z', rotation: 'daily', users: [t.ada], ...l });
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ name: 'x', layers: [layer({ rotation: 'custom' })] }, ['/layers/0/shiftHours']],
      [{ name: 'x', layers: [layer({ rotation: 'custom', shiftHours: null })] }, ['/layers/0/shiftHours']],
      [{ name: 'x', layers: [layer({}), layer({ rotation: 'weekly', shiftHours: 8 })] }, ['/layers/1/shiftHours']],
      [{ name: 'x', layers: [layer({ rotation: 'custom', shiftHours: 0 })] }, ['/layers/0/shiftHours']],
      [{ name: 'x', layers: [layer({ rotation: 'custom', shiftHours: 1.5 })] }, ['/layers/0/shiftHours']],
      [{ name: 'x', layers: [layer({ users: [t.ada, other.ada] })] }, ['/layers/0/users/1']],
      [{ name: 'x', layers: [layer({ users: ['usr_nobody'] })], overrides: [{ userId: other.bob, startsAt: '2026-11-02T08:00:00Z', endsAt: '2026-11-02T09:00:00Z' }] },
        ['/layers/0/users/0', '/overrides/0/userId']],
      [{ name: 'x', timezone: 'Mars/Olympus' }, ['/timezone']],
      [{ name: 'x', timezone: '+02:00' }, ['/timezone']],
      [{ name: 'x', overrides: [{ userId: t.ada, startsAt: '2026-11-02T09:00:00Z', endsAt: '2026-11-02T09:00:00Z' }] }, ['/overrides/0/endsAt']],
      [{ name: 'x', overrides: [{ userId: t.ada, startsAt: '2026-11-02', endsAt: '2026-11-03T09:00:00Z' }] }, ['/overrides/0/startsAt']],
      [{ name: 'x', layers: [layer({ rotation: 'monthly' })] }, ['/layers/0/rotation']],
      [{ name: 'x', layers: [layer({ users: [] })] }, ['/layers/0/users']],
      [{ name: 'x', layers: [layer({ users: Array.from({ length: 51 }, () => t.ada) })] }, ['/layers/0/users']],
      [{ name: 'x', layers: Array.from({ length: 11 }, () => layer({})) }, ['/layers']],
      [{ name: 'x', layers: [layer({ restrictions: Array.from({ length: 15 }, () => ({ days: ['mon'], from: '09:00', to: '17:00' })) })] }, ['/layers/0/restrictions']],
      [{ name: 'x', layers: [layer({ restrictions: [{ days: ['mon'], from: '9:00', to: '17:00' }] })] }, ['/layers/0/restrictions/0/from']],
      [{ name: 'x', layers: [layer({ restrictions: [{ days: ['mon'], from: '09:00', to: '24:00' }] })] }, ['/layers/0/restrictions/0/to']],
      [{ name: 'x', layers: [layer({ restrictions: [{ days: ['mon', 'mon'], from: '09:00', to: '17:00' }] })] }, ['/layers/0/restrictions/0/days']],
      [{ name: 'x', layers: [layer({ restrictions: [{ days: ['monday'], from: '09:00', to: '17:00' }] })] }, ['/layers/0/restrictions/0/days/0']],
      [{ name: 'x', layers: [layer({ color: 'red' })] }, ['/layers/0/color']],
      [{ name: 'x', orgId: other.org.id }, ['/orgId']],
      [{ name: '' }, ['/name']],
      [{ timezone: 'UTC' }, ['/name']],
    ];
    for (const [body, paths] of cases) {
      const r = await h.req('POST', '/api/v1/schedules', { key: t.org.key, body });
      assert.equal(r.status, 400, `POST ${JSON.stringify(body).slice(0, 120)}: ${r.raw}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      for (const p of paths) assert.ok(r.body.details.some((d: { path: string }) => d.path === p), `${JSON.stringify(body).slice(0, 120)}: ${JSON.stringify(r.body.details)} should name ${p}`);
      if (body.name === 'x' && (paths[0] as string).startsWith('/layers') && body.layers) {
        const put = await h.req('PUT', `/api/v1/schedules/${s.id}`, { key: t.org.key, body: { layers: body.layers } });
        assert.equal(put.status, 400, `PUT ${JSON.stringify(body.layers).slice(0, 120)}`);
      }
    }
    for (const body of [{}, { overrides: [{ userId: other.ada, startsAt: '2026-11-02T08:00:00Z', endsAt: '2026-11-02T09:00:00Z' }] }]) {
      const r = await h.req('PATCH', `/api/v1/schedules/${s.id}`, { key: t.org.key, body });
      assert.equal(r.status, 400, JSON.stringify(body));
    }
    const list = await h.req('GET', '/api/v1/schedules', { key: t.org.key });
    assert.equal(list.body.meta.total, 1, 'no refused schedule was stored');
    assert.deepEqual((await h.req('GET', `/api/v1/schedules/${s.id}`, { key: t.org.key })).body.data, s, 'no refused update was stored');
    assert.equal((await h.req('GET', '/api/v1/audit-log?action=schedule.updated', { key: t.org.key })).body.data.length, 0);
    const most = await h.req('POST', '/api/v1/schedules', { key: t.org.key, body: { name: 'x', layers: Array.from({ length: 10 }, () => layer({ users: Array.from({ length: 50 }, () => t.ada) })) } });
    assert.equal(most.status, 201, 'the limits themselves are allowed');
  });

  it('another organization\'s schedule is 404, like a missing one, on every route with an id', async () => {
    const t = await team();
    const other = await team();
    const theirs = await create(other.org, berlinDaily(other));
    for (const [method, suffix, body] of [
      ['GET', '', undefined], ['PUT', '', { name: 'x' }], ['PATCH', '', { name: 'x' }], ['DELETE', '', undefined],
      ['GET', '/shifts', undefined], ['GET', '/calendar.ics', undefined],
    ] as const) {
      const a = await h.req(method, `/api/v1/schedules/${theirs.id}${suffix}`, { key: t.org.key, ...(body && { body }) });
      const b = await h.req(method, `/api/v1/schedules/sch_doesNotExist${suffix}`, { key: t.org.key, ...(body && { body }) });
      assert.equal(a.status, 404, `${method} ${suffix}`);
      assert.deepEqual(a.body, b.body);
    }
    const oncall = await h.req('GET', `/api/v1/schedules/current-oncall?scheduleId=${theirs.id}`, { key: t.org.key });
    assert.equal(oncall.status, 404);
    assert.deepEqual((await h.req('GET', '/api/v1/schedules/current-oncall', { key: t.org.key })).body.data, []);
    assert.deepEqual((await h.req('GET', `/api/v1/schedules/${theirs.id}`, { key: other.org.key })).body.data, theirs);
    assert.equal(await h.c.schedules.currentOnCall(t.org.id, theirs.id, Date.parse('2026-10-25T07:30:00Z')), null, 'the service finds nobody through another organization');
  });

  it('needs schedules:read to read (current-oncall, shifts and the calendar too) and schedules:write to change', async () => {
    const t = await team();
    const s = await create(t.org, berlinDaily(t));
    const key = async (scopes: string[]) => (await h.req('POST', '/api/v1/api-keys', { key: t.org.key, body: { name: 'k', scopes } })).body.data.key as string;
    const ro = await key(['schedules:read']);
    for (const url of ['/api/v1/schedules', `/api/v1/schedules/${s.id}`, '/api/v1/schedules/current-oncall', `/api/v1/schedules/${s.id}/shifts`]) {
      assert.equal((await h.req('GET', url, { key: ro })).status, 200, url);
    }
    assert.equal((await raw(`/api/v1/schedules/${s.id}/calendar.ics`, ro)).statusCode, 200);
    for (const [method, url, body] of [
      ['POST', '/api/v1/schedules', { name: 'x' }], ['PUT', `/api/v1/schedules/${s.id}`, { name: 'x' }],
      ['PATCH', `/api/v1/schedules/${s.id}`, { name: 'x' }], ['DELETE', `/api/v1/schedules/${s.id}`, undefined],
    ] as const) {
      const r = await h.req(method, url, { key: ro, ...(body && { body }) });
      assert.equal(r.status, 403, `${method} ${url}`);
      assert.match(r.body.error, /schedules:write/);
    }
    const wo = await key(['schedules:write']);
    for (const url of ['/api/v1/schedules', `/api/v1/schedules/${s.id}`, '/api/v1/schedules/current-oncall', `/api/v1/schedules/${s.id}/shifts`, `/api/v1/schedules/${s.id}/calendar.ics`]) {
      const r = await h.req('GET', url, { key: wo });
      assert.equal(r.status, 403, url);
      assert.match(r.body.error, /schedules:read/);
    }
    const none = await raw(`/api/v1/schedules/${s.id}/calendar.ics`, null);
    assert.equal(none.statusCode, 401, 'the feed needs a key like everything else');
  });

  it('current-oncall: one entry per schedule at `at` (default now), the bounds of the current shift; not captured by /schedules/{id}', async () => {
    const t = await team();
    const empty = await h.req('GET', '/api/v1/schedules/current-oncall', { key: t.org.key });
    assert.equal(empty.status, 200, 'a static route, not GET /schedules/{id} with id "current-oncall"');
    assert.deepEqual(empty.body, { data: [], meta: { limit: 25, hasMore: false, nextCursor: null, total: 0 } });

    const primary = await create(t.org, berlinDaily(t));
    h.clock.advance(1000);
    const covered = await create(t.org, berlinDaily(t, { name: 'Covered', overrides: [{ userId: t.dan, startsAt: '2026-11-21T09:00:00Z', endsAt: '2026-11-21T12:00:00Z' }] }));
    h.clock.advance(1000);
    const nobody = await create(t.org, { name: 'Nights', timezone: 'Europe/Berlin', layers: [{ name: 'N', startsAt: '2026-10-01T00:00:00Z', rotation: 'weekly', users: [t.ada], restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '22:00', to: '06:00' }] }] });

    // Now: Saturday 2026-11-21 10:00 UTC (11:00 CET). 29 days after the start: Cyd's turn since 09:00 CET.
    const now = await h.req('GET', '/api/v1/schedules/current-oncall', { key: t.org.key });
    assert.equal(now.status, 200, now.raw);
    assert.equal(now.body.meta.total, 3);
    assert.deepEqual(now.body.data, [
      { scheduleId: nobody.id, scheduleName: 'Nights', user: null, startsAt: '2026-11-21T05:00:00.000Z', endsAt: '2026-11-23T21:00:00.000Z' },
      { scheduleId: covered.id, scheduleName: 'Covered', user: { id: t.dan, name: 'Dan Abramov', email: 'dan@acme.test' }, startsAt: '2026-11-21T09:00:00.000Z', endsAt: '2026-11-21T12:00:00.000Z' },
      { scheduleId: primary.id, scheduleName: 'Primary', user: { id: t.cyd, name: 'Cyd Charisse', email: 'cyd@acme.test' }, startsAt: '2026-11-21T08:00:00.000Z', endsAt: '2026-11-22T08:00:00.000Z' },
    ]);

    // Over the fall-back night: Bob's shift of 25 hours.
    const dst = await h.req('GET', `/api/v1/schedules/current-oncall?${q({ scheduleId: primary.id, at: '2026-10-25T07:30:00.000Z' })}`, { key: t.org.key });
    assert.equal(dst.status, 200, dst.raw);
    assert.deepEqual(dst.body, {
      data: [{ scheduleId: primary.id, scheduleName: 'Primary', user: { id: t.bob, name: 'Bob, the Builder', email: 'bob@acme.test' }, startsAt: '2026-10-24T07:00:00.000Z', endsAt: '2026-10-25T08:00:00.000Z' }],
      meta: { limit: 25, hasMore: false, nextCursor: null, total: 1 },
    });
    const early = await h.req('GET', `/api/v1/schedules/current-oncall?${q({ scheduleId: primary.id, at: '2026-10-01T00:00:00+02:00' })}`, { key: t.org.key });
    assert.deepEqual(early.body.data[0], { scheduleId: primary.id, scheduleName: 'Primary', user: null, startsAt: null, endsAt: '2026-10-23T07:00:00.000Z' });

    const paged = await h.req('GET', '/api/v1/schedules/current-oncall?limit=2', { key: t.org.key });
    assert.equal(paged.body.data.length, 2);
    const rest = await h.req('GET', `/api/v1/schedules/current-oncall?limit=2&cursor=${encodeURIComponent(paged.body.meta.nextCursor)}`, { key: t.org.key });
    assert.deepEqual(rest.body.data.map((e: { scheduleId: string }) => e.scheduleId), [primary.id]);

    for (const bad of ['at=yesterday', 'at=2026-11-21', 'limit=0', 'cursor=garbage']) {
      const r = await h.req('GET', `/api/v1/schedules/current-oncall?${bad}`, { key: t.org.key });
      assert.equal(r.status, 400, bad);
    }
    assert.equal((await h.req('GET', '/api/v1/schedules/current-oncall?scheduleId=sch_missing', { key: t.org.key })).status, 404);

    // The service call incidents and notifications use.
    assert.deepEqual(await h.c.schedules.currentOnCall(t.org.id, primary.id, Date.parse('2026-10-25T07:30:00Z')), { id: t.bob, name: 'Bob, the Builder', email: 'bob@acme.test' });
    assert.deepEqual(await h.c.schedules.currentOnCall(t.org.id, covered.id), { id: t.dan, name: 'Dan Abramov', email: 'dan@acme.test' }, 'default: the clock\'s now');
    assert.equal(await h.c.schedules.currentOnCall(t.org.id, nobody.id), null);
    assert.equal(await h.c.schedules.currentOnCall(t.org.id, 'sch_missing'), null);
  });

  it('shifts: the final shifts of a range with their real bounds, sources and layer names; the range is checked', async () => {
    const t = await team();
    const s = await create(t.org, berlinDaily(t, { overrides: [{ userId: t.dan, startsAt: '2026-10-25T10:00:00Z', endsAt: '2026-10-25T12:00:00Z' }] }));
    const r = await h.req('GET', `/api/v1/schedules/${s.id}/shifts?${q({ from: '2026-10-24T00:00:00Z', to: '2026-10-26T00:00:00Z' })}`, { key: t.org.key });
    assert.equal(r.status, 200, r.raw);
    assert.deepEqual(r.body.data, {
      scheduleId: s.id,
      timezone: 'Europe/Berlin',
      from: '2026-10-24T00:00:00.000Z',
      to: '2026-10-26T00:00:00.000Z',
      shifts: [
        { userId: t.ada, startsAt: '2026-10-23T07:00:00.000Z', endsAt: '2026-10-24T07:00:00.000Z', source: 'layer', layerName: 'Follow the sun' },
        { userId: t.bob, startsAt: '2026-10-24T07:00:00.000Z', endsAt: '2026-10-25T08:00:00.000Z', source: 'layer', layerName: 'Follow the sun' }, // 25 h
        { userId: t.cyd, startsAt: '2026-10-25T08:00:00.000Z', endsAt: '2026-10-25T10:00:00.000Z', source: 'layer', layerName: 'Follow the sun' },
        { userId: t.dan, startsAt: '2026-10-25T10:00:00.000Z', endsAt: '2026-10-25T12:00:00.000Z', source: 'override' },
        { userId: t.cyd, startsAt: '2026-10-25T12:00:00.000Z', endsAt: '2026-10-26T08:00:00.000Z', source: 'layer', layerName: 'Follow the sun' },
      ],
    });
    const byDefault = await h.req('GET', `/api/v1/schedules/${s.id}/shifts`, { key: t.org.key });
    assert.equal(byDefault.body.data.from, iso(h.clock.now()));
    assert.equal(byDefault.body.data.to, iso(h.clock.now() + 7 * 86_400_000));
    assert.equal(byDefault.body.data.shifts.length, 8, 'the shift under way and the seven after it');
    const ok93 = await h.req('GET', `/api/v1/schedules/${s.id}/shifts?${q({ from: '2026-11-01T00:00:00Z', to: '2027-02-02T00:00:00Z' })}`, { key: t.org.key });
    assert.equal(ok93.status, 200, '93 days is allowed');
    const bads: Array<Record<string, string>> = [
      { from: '2026-11-01T00:00:00Z', to: '2027-02-02T00:00:00.001Z' },
      { from: '2026-11-01T00:00:00Z', to: '2026-11-01T00:00:00Z' },
      { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' },
      { from: 'soon' },
    ];
    for (const bad of bads) {
      const e = await h.req('GET', `/api/v1/schedules/${s.id}/shifts?${q(bad)}`, { key: t.org.key });
      assert.equal(e.status, 400, JSON.stringify(bad));
      assert.equal(e.body.code, 'VALIDATION_ERROR');
    }
    const none = await create(t.org, { name: 'Nobody' });
    assert.deepEqual((await h.req('GET', `/api/v1/schedules/${none.id}/shifts`, { key: t.org.key })).body.data.shifts, []);
  });

  it('calendar.ics: text/calendar, one VEVENT per final shift in UTC, "On call: <name>" escaped, UIDs stable as the window moves', async () => {
    const t = await team();
    const s = await create(t.org, berlinDaily(t, { name: 'Primary; EU, 24/7', overrides: [{ userId: t.dan, startsAt: '2026-11-21T09:00:00Z', endsAt: '2026-11-21T12:00:00Z' }] }));
    const range = { from: '2026-10-24T00:00:00Z', to: '2026-10-26T00:00:00Z' };
    const r = await raw(`/api/v1/schedules/${s.id}/calendar.ics?${q(range)}`, t.org.key);
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.headers['content-type'], 'text/calendar; charset=utf-8');
    assert.ok(r.body.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n'));
    assert.ok(r.body.endsWith('END:VCALENDAR\r\n'));
    assert.ok(!/[^\r]\n/.test(r.body), 'CRLF line ends');
    assert.ok(r.body.includes('X-WR-CALNAME:Primary\\; EU\\, 24/7\r\n'));
    const events = r.body.split('BEGIN:VEVENT\r\n').slice(1).map((e) => Object.fromEntries(e.split('\r\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)])));
    assert.deepEqual(events.map((e) => [e.DTSTART, e.DTEND, e.SUMMARY]), [
      ['20261023T070000Z', '20261024T070000Z', 'On call: Ada Lovelace'],
      ['20261024T070000Z', '20261025T080000Z', 'On call: Bob\\, the Builder'],
      ['20261025T080000Z', '20261026T080000Z', 'On call: Cyd Charisse'],
    ]);
    const shifts = (await h.req('GET', `/api/v1/schedules/${s.id}/shifts?${q(range)}`, { key: t.org.key })).body.data.shifts;
    assert.equal(events.length, shifts.length, 'the same shifts as GET /shifts');
    assert.equal(new Set(events.map((e) => e.UID)).size, events.length);
    for (const e of events) assert.match(e.UID as string, /^[0-9a-f]{32}@alertflow$/);

    // The default window (7 days back, 60 ahead) moves with the clock; a shift keeps its UID.
    const uids = async () => {
      const feed = await raw(`/api/v1/schedules/${s.id}/calendar.ics`, t.org.key);
      assert.equal(feed.statusCode, 200);
      return new Map([...feed.body.matchAll(/UID:(\S+)\r\nDTSTAMP:\S+\r\nDTSTART:(\S+)/g)].map((m) => [m[2], m[1]]));
    };
    const today = await uids();
    assert.ok(today.size >= 67, `${today.size} events`);
    h.clock.advance(3 * 86_400_000 + 3_600_000);
    const later = await uids();
    let shared = 0;
    for (const [start, uid] of later) {
      if (!today.has(start)) continue;
      shared += 1;
      assert.equal(uid, today.get(start), `the shift from ${start} keeps its UID`);
    }
    assert.ok(shared > 60);
    const override = [...(await raw(`/api/v1/schedules/${s.id}/calendar.ics?${q({ from: '2026-11-21T00:00:00Z', to: '2026-11-22T00:00:00Z' })}`, t.org.key)).body.matchAll(/SUMMARY:(.*)\r\n/g)].map((m) => m[1]);
    assert.deepEqual(override, ['On call: Bob\\, the Builder', 'On call: Cyd Charisse', 'On call: Dan Abramov', 'On call: Cyd Charisse']);
    const doc = h.openapi.doc as unknown as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
    assert.deepEqual(Object.keys(doc.paths['/schedules/{id}/calendar.ics']?.get?.responses['200']?.content ?? {}), ['text/calendar'], 'documented as text/calendar');
    const tooLong = await raw(`/api/v1/schedules/${s.id}/calendar.ics?${q({ from: '2026-01-01T00:00:00Z', to: '2026-06-01T00:00:00Z' })}`, t.org.key);
    assert.equal(tooLong.statusCode, 400);
  });
});
