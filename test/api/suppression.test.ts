import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

eachStore('suppression windows', { together: true }, (kind) => {
  let h: Harness;
  // The sweeper's own timer stays out of the way: the tests call sweep() after moving the clock.
  before(async () => { h = await startHarness(kind, { SUPPRESSION_SWEEP_SECONDS: '86400' }); });
  after(() => h.close());

  /** A fresh organization and integration, so each test sees only its own windows and alerts. */
  async function fresh() {
    const org = await h.newOrg();
    const integ = await h.integration(org);
    const fire = async (title: string, extra: Record<string, unknown> = {}) => {
      const r = await h.ingest(integ.path, { title, severity: 'high', ...extra });
      assert.equal(r.status, 200, r.raw);
      return r.body.data.alerts[0] as { alertId: string; status: string; action: string };
    };
    const alert = async (id: string) => (await h.req('GET', `/api/v1/alerts/${id}`, { key: org.key })).body.data;
    return { org, integ, fire, alert };
  }
  async function create(org: Org, body: Record<string, unknown>) {
    const r = await h.req('POST', '/api/v1/suppression', { key: org.key, body });
    assert.equal(r.status, 201, r.raw);
    return r.body.data as Record<string, any>;
  }
  /** A window in force from now for `hours`. */
  const now = (hours = 1, extra: Record<string, unknown> = {}) =>
    ({ name: 'Maintenance', startsAt: iso(h.clock.now()), endsAt: iso(h.clock.now() + hours * HOUR), ...extra });
  const get = (org: Org, id: string) => h.req('GET', `/api/v1/suppression/${id}`, { key: org.key });
  async function addClient(org: Org, slug: string): Promise<string> {
    const id = `cli_${slug}_${org.id.slice(-6)}`;
    const at = h.clock.now();
    await h.c.store.db.insertInto('clients').values({ id, org_id: org.id, name: slug, slug, contact_email: null, notes: null, created_at: at, updated_at: at }).execute();
    return id;
  }

  it('POST with the required fields: 201 with defaults, whether it is active and its occurrences', async () => {
    const { org } = await fresh();
    const body = now(2);
    const d = await create(org, body);
    assert.match(d.id, /^sup_/);
    assert.deepEqual({ ...d, id: undefined }, {
      id: undefined,
      name: 'Maintenance',
      description: null,
      startsAt: body.startsAt,
      endsAt: body.endsAt,
      timezone: 'UTC',
      recurrence: null,
      matchers: [],
      clientId: null,
      active: true,
      nextOccurrences: [{ startsAt: body.startsAt, endsAt: body.endsAt }],
      createdAt: iso(h.clock.now()),
      updatedAt: iso(h.clock.now()),
    });
    const future = await create(org, { name: 'Later', startsAt: iso(h.clock.now() + HOUR), endsAt: iso(h.clock.now() + 2 * HOUR), description: 'DB upgrade' });
    assert.equal(future.active, false);
    assert.equal(future.description, 'DB upgrade');
    assert.equal(future.nextOccurrences.length, 1);
    const one = await get(org, d.id);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data, d);
  });

  it('a weekly window in Europe/Berlin: local 22:00 on both sides of the DST change, active only during its occurrences', async () => {
    const { org } = await fresh();
    // The test clock starts on Saturday 2026-11-21 10:00 UTC (CET): the first occurrence is that evening, 22:00–24:00 local.
    const d = await create(org, {
      name: 'Saturday nights', timezone: 'Europe/Berlin', recurrence: 'RRULE:FREQ=WEEKLY;BYDAY=SA',
      startsAt: '2026-11-21T22:00:00+01:00', endsAt: '2026-11-22T00:00:00+01:00',
    });
    assert.equal(d.recurrence, 'FREQ=WEEKLY;BYDAY=SA');
    assert.equal(d.startsAt, '2026-11-21T21:00:00.000Z');
    assert.equal(d.active, false);
    assert.deepEqual(d.nextOccurrences.map((o: { startsAt: string }) => o.startsAt),
      ['2026-11-21T21:00:00.000Z', '2026-11-28T21:00:00.000Z', '2026-12-05T21:00:00.000Z', '2026-12-12T21:00:00.000Z', '2026-12-19T21:00:00.000Z']);
    h.clock.t = Date.parse('2027-03-27T21:30:00.000Z');
    const before = (await get(org, d.id)).body.data;
    assert.equal(before.active, true);
    assert.deepEqual(before.nextOccurrences.slice(0, 2), [
      { startsAt: '2027-03-27T21:00:00.000Z', endsAt: '2027-03-27T23:00:00.000Z' },
      { startsAt: '2027-04-03T20:00:00.000Z', endsAt: '2027-04-03T22:00:00.000Z' }, // CEST after 2027-03-28
    ]);
    h.clock.t = Date.parse('2027-04-03T20:30:00.000Z');
    assert.equal((await get(org, d.id)).body.data.active, true);
    h.clock.t = Date.parse('2027-04-03T22:00:00.000Z');
    assert.equal((await get(org, d.id)).body.data.active, false);
    h.clock.t = Date.parse('2026-11-21T10:00:00.000Z');
  });

  it('GET lists newest first with keyset pages; PUT is partial, PATCH a synonym; DELETE is 204 then 404', async () => {
    const { org } = await fresh();
    const a = await create(org, now(1, { name: 'first' }));
    h.clock.advance(1000);
    const b = await create(org, now(1, { name: 'second' }));
    const list = await h.req('GET', '/api/v1/suppression', { key: org.key });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((w: { id: string }) => w.id), [b.id, a.id]);
    assert.equal(list.body.meta.total, 2);
    const page = await h.req('GET', '/api/v1/suppression?limit=1', { key: org.key });
    assert.deepEqual(page.body.data.map((w: { id: string }) => w.id), [b.id]);
    const rest = await h.req('GET', `/api/v1/suppression?limit=1&cursor=${encodeURIComponent(page.body.meta.nextCursor)}`, { key: org.key });
    assert.deepEqual(rest.body.data.map((w: { id: string }) => w.id), [a.id]);
    assert.equal(rest.body.meta.hasMore, false);

    h.clock.advance(MINUTE);
    const put = await h.req('PUT', `/api/v1/suppression/${a.id}`, { key: org.key, body: { name: 'renamed', matchers: [{ field: 'labels.env', op: 'eq', value: 'prod' }] } });
    assert.equal(put.status, 200, put.raw);
    assert.deepEqual(put.body.data, { ...a, name: 'renamed', matchers: [{ field: 'labels.env', op: 'eq', value: 'prod' }], updatedAt: iso(h.clock.now()) });
    const patch = await h.req('PATCH', `/api/v1/suppression/${a.id}`, { key: org.key, body: { description: 'why', timezone: 'Europe/Berlin', recurrence: null } });
    assert.equal(patch.status, 200);
    assert.equal(patch.body.data.description, 'why');
    assert.equal(patch.body.data.timezone, 'Europe/Berlin');
    assert.equal(patch.body.data.name, 'renamed');
    assert.deepEqual((await get(org, a.id)).body.data, patch.body.data, 'the update is stored');

    const del = await h.req('DELETE', `/api/v1/suppression/${a.id}`, { key: org.key });
    assert.equal(del.status, 204);
    assert.equal(del.raw, '');
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'x' }], ['PATCH', { name: 'x' }], ['DELETE', undefined]] as const) {
      const r = await h.req(method, `/api/v1/suppression/${a.id}`, { key: org.key, ...(body && { body }) });
      assert.equal(r.status, 404, method);
      assert.equal(r.body.code, 'NOT_FOUND');
    }
    assert.equal((await h.req('GET', '/api/v1/suppression', { key: org.key })).body.meta.total, 1);
  });

  it('refuses invalid windows with 400 and details, storing nothing', async () => {
    const { org } = await fresh();
    const other = await h.newOrg();
    const theirClient = await addClient(other, 'theirs');
    const base = now(1);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ startsAt: base.startsAt, endsAt: base.endsAt }, '/name'],
      [{ name: 'x', endsAt: base.endsAt }, '/startsAt'],
      [{ ...base, endsAt: base.startsAt }, '/endsAt'],
      [{ ...base, endsAt: iso(h.clock.now() - HOUR) }, '/endsAt'],
      [{ ...base, startsAt: 'tomorrow' }, '/startsAt'],
      [{ ...base, timezone: 'Mars/Olympus' }, '/timezone'],
      [{ ...base, timezone: '+02:00' }, '/timezone'],
      [{ ...base, recurrence: 'FREQ=MINUTELY' }, '/recurrence'],
      [{ ...base, recurrence: 'FREQ=DAILY;COUNT=2;UNTIL=20270101T000000Z' }, '/recurrence'],
      [{ ...base, recurrence: 'not a rule' }, '/recurrence'],
      [{ ...base, recurrence: 'FREQ=WEEKLY;BYDAY=MO' }, '/recurrence'], // startsAt is a Saturday
      [{ ...base, recurrence: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30' }, '/recurrence'],
      [{ ...base, matchers: [{ field: 'labels.env', op: 'like', value: 'x' }] }, '/matchers/0/op'],
      [{ ...base, matchers: [{ field: 'secret', op: 'eq', value: 'x' }] }, '/matchers/0/field'],
      [{ ...base, matchers: [{ field: 'labels.env', op: 'in', value: 'prod' }] }, '/matchers/0/value'],
      [{ ...base, matchers: [{ field: 'labels.env', op: 'matches', value: '(unclosed' }] }, '/matchers/0/value'],
      [{ ...base, matchers: [{ field: 'labels.env', op: 'eq', value: 'x', extra: 1 }] }, '/matchers/0/extra'],
      [{ ...base, clientId: theirClient }, '/clientId'],
      [{ ...base, clientId: 'cli_nope' }, '/clientId'],
      [{ ...base, active: true }, '/active'],
    ];
    for (const [body, path] of cases) {
      const r = await h.req('POST', '/api/v1/suppression', { key: org.key, body });
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.raw}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.ok(r.body.details.some((d: { path: string }) => d.path === path), `${JSON.stringify(body)}: ${JSON.stringify(r.body.details)}`);
    }
    assert.equal((await h.req('GET', '/api/v1/suppression', { key: org.key })).body.meta.total, 0);

    const d = await create(org, base);
    const updates: Array<[Record<string, unknown>, string]> = [
      [{}, ''],
      [{ endsAt: iso(h.clock.now() - MINUTE) }, '/endsAt'], // checked against the stored startsAt
      [{ recurrence: 'FREQ=WEEKLY;BYDAY=SU' }, '/recurrence'],
      [{ timezone: 'Nowhere' }, '/timezone'],
      [{ clientId: theirClient }, '/clientId'],
    ];
    for (const [body, path] of updates) {
      const r = await h.req('PUT', `/api/v1/suppression/${d.id}`, { key: org.key, body });
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.raw}`);
      if (path) assert.ok(r.body.details.some((x: { path: string }) => x.path === path), `${JSON.stringify(body)}: ${JSON.stringify(r.body.details)}`);
    }
    assert.deepEqual((await get(org, d.id)).body.data, d, 'nothing changed');
    const invalidOnMissing = await h.req('PUT', '/api/v1/suppression/sup_missing', { key: org.key, body: { timezone: 'Nowhere' } });
    assert.equal(invalidOnMissing.status, 400, 'validation comes before existence');
  });

  it('another organization\'s window is 404 like a missing one, and stays untouched', async () => {
    const { org } = await fresh();
    const other = await h.newOrg();
    const theirs = await create(other, now(1, { name: 'theirs' }));
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'hijacked' }], ['PATCH', { name: 'hijacked' }], ['DELETE', undefined]] as const) {
      const a = await h.req(method, `/api/v1/suppression/${theirs.id}`, { key: org.key, ...(body && { body }) });
      const b = await h.req(method, '/api/v1/suppression/sup_doesNotExist', { key: org.key, ...(body && { body }) });
      assert.equal(a.status, 404, method);
      assert.deepEqual(a.body, b.body, method);
    }
    assert.deepEqual((await get(other, theirs.id)).body.data, theirs);
    assert.equal((await h.req('GET', '/api/v1/suppression', { key: org.key })).body.meta.total, 0);
  });

  it('needs suppression:read to read and suppression:write to change', async () => {
    const { org } = await fresh();
    const d = await create(org, now());
    const ro = (await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'ro', scopes: ['suppression:read'] } })).body.data.key as string;
    assert.equal((await h.req('GET', `/api/v1/suppression/${d.id}`, { key: ro })).status, 200);
    assert.equal((await h.req('GET', '/api/v1/suppression', { key: ro })).status, 200);
    for (const [method, url, body] of [
      ['POST', '/api/v1/suppression', now()],
      ['PUT', `/api/v1/suppression/${d.id}`, { name: 'x' }],
      ['PATCH', `/api/v1/suppression/${d.id}`, { name: 'x' }],
      ['DELETE', `/api/v1/suppression/${d.id}`, undefined],
    ] as const) {
      const r = await h.req(method, url, { key: ro, ...(body && { body }) });
      assert.equal(r.status, 403, `${method} ${url}`);
      assert.match(r.body.error, /suppression:write/);
    }
    const alertsOnly = (await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'a', scopes: ['alerts:read'] } })).body.data.key as string;
    for (const url of ['/api/v1/suppression', `/api/v1/suppression/${d.id}`]) {
      const r = await h.req('GET', url, { key: alertsOnly });
      assert.equal(r.status, 403);
      assert.match(r.body.error, /suppression:read/);
    }
    assert.deepEqual((await get(org, d.id)).body.data, d);
  });

  it('records suppression.created, .updated and .deleted audit events', async () => {
    const { org } = await fresh();
    const keyId = (await h.req('GET', '/api/v1/api-keys', { key: org.key })).body.data[0].id;
    const d = await create(org, now());
    await h.req('PUT', `/api/v1/suppression/${d.id}`, { key: org.key, body: { name: 'x' } });
    await h.req('DELETE', `/api/v1/suppression/${d.id}`, { key: org.key });
    for (const action of ['suppression.created', 'suppression.updated', 'suppression.deleted']) {
      const r = await h.req('GET', `/api/v1/audit-log?action=${action}`, { key: org.key });
      assert.equal(r.body.data.length, 1, action);
      assert.deepEqual(r.body.data[0].target, { type: 'suppression_window', id: d.id });
      assert.deepEqual(r.body.data[0].actor, { type: 'api_key', id: keyId });
    }
  });

  it('stores a new firing alert that a window holds as suppressed (action suppressed); others are created as usual', async () => {
    const { org, fire, alert } = await fresh();
    const w = await create(org, now(1, { matchers: [{ field: 'labels.env', op: 'eq', value: 'prod' }, { field: 'labels.host', op: 'matches', value: '^db[0-9]+$' }] }));
    const held = await fire('Disk full', { labels: { env: 'prod', host: 'db1' } });
    assert.equal(held.action, 'suppressed');
    assert.equal(held.status, 'suppressed');
    const stored = await alert(held.alertId);
    assert.equal(stored.status, 'suppressed');
    assert.equal(stored.suppressionId, w.id);
    const again = await fire('Disk full', { labels: { env: 'prod', host: 'db1' } });
    assert.equal(again.action, 'deduplicated', 'a repeat of a suppressed alert is deduplicated');
    assert.equal(again.status, 'suppressed');
    assert.equal((await fire('Disk full on web', { labels: { env: 'prod', host: 'web1' } })).action, 'created');
    assert.equal((await fire('Staging disk', { labels: { env: 'staging', host: 'db1' } })).action, 'created');
    assert.equal((await fire('No labels')).action, 'created');
    const explicit = await fire('Sent as acknowledged', { status: 'acknowledged', labels: { env: 'prod', host: 'db2' } });
    assert.equal(explicit.action, 'created', 'only firing payloads are suppressed by windows');
    assert.equal(explicit.status, 'acknowledged');
    const totals = await h.req('GET', '/api/v1/alerts?status=suppressed', { key: org.key });
    assert.equal(totals.body.meta.total, 1);
    const other = await h.newOrg();
    const theirs = await h.integration(other);
    const r = await h.ingest(theirs.path, { title: 'Disk full', severity: 'high', labels: { env: 'prod', host: 'db1' } });
    assert.equal(r.body.data.alerts[0].action, 'created', 'windows belong to their organization');
  });

  it('a window not yet begun or already over suppresses nothing; an existing firing alert is not suppressed by a new window', async () => {
    const { org, fire } = await fresh();
    const open = await fire('Already firing');
    await create(org, { name: 'later', startsAt: iso(h.clock.now() + HOUR), endsAt: iso(h.clock.now() + 2 * HOUR) });
    await create(org, { name: 'past', startsAt: iso(h.clock.now() - 2 * HOUR), endsAt: iso(h.clock.now() - HOUR) });
    assert.equal((await fire('New')).action, 'created');
    await create(org, now());
    const repeat = await fire('Already firing');
    assert.equal(repeat.action, 'deduplicated');
    assert.equal(repeat.status, 'firing');
    assert.equal(repeat.alertId, open.alertId);
  });

  it('a client-scoped window holds only alerts of that client', async () => {
    const { org, fire, alert } = await fresh();
    const acme = await addClient(org, 'acme');
    await addClient(org, 'globex');
    const w = await create(org, now(1, { clientId: acme }));
    assert.equal(w.clientId, acme);
    const held = await fire('Acme down', { labels: { client: 'acme' } });
    assert.equal(held.action, 'suppressed');
    assert.equal((await alert(held.alertId)).clientId, acme);
    assert.equal((await fire('Globex down', { labels: { client: 'globex' } })).action, 'created');
    assert.equal((await fire('Nobody\'s')).action, 'created');
  });

  it('returns the alerts a window suppressed to firing once it has ended; an acknowledged one stays acknowledged', async () => {
    const { org, fire, alert } = await fresh();
    const w = await create(org, now(1));
    const a = await fire('one');
    const b = await fire('two');
    const c = await fire('three');
    await h.req('POST', `/api/v1/alerts/${c.alertId}/acknowledge`, { key: org.key });
    h.clock.advance(HOUR - 1);
    await h.c.suppression.sweep();
    assert.equal((await alert(a.alertId)).status, 'suppressed', 'still in force');
    h.clock.advance(1);
    assert.equal((await get(org, w.id)).body.data.active, false);
    const swept = await h.c.suppression.sweep();
    assert.ok(swept.released >= 2);
    for (const id of [a.alertId, b.alertId]) {
      const back = await alert(id);
      assert.equal(back.status, 'firing');
      assert.equal(back.suppressionId, null);
      assert.equal(back.updatedAt, iso(h.clock.now()));
    }
    assert.equal((await alert(c.alertId)).status, 'acknowledged');
    assert.equal((await h.req('GET', '/api/v1/alerts?status=firing', { key: org.key })).body.meta.total, 2, 'the counters follow');
    assert.equal((await fire('one')).action, 'deduplicated', 'the same alert fires on');
    assert.deepEqual(await h.c.suppression.sweep(), { released: 0, moved: 0 }, 'a second sweep finds nothing');
  });

  it('an alert whose window ends stays suppressed under another window in force that holds it', async () => {
    const { org, fire, alert } = await fresh();
    const short = await create(org, now(1, { name: 'short' }));
    h.clock.advance(1000);
    const long = await create(org, now(3, { name: 'long', matchers: [{ field: 'labels.env', op: 'eq', value: 'prod' }] }));
    const prod = await fire('prod', { labels: { env: 'prod' } });
    const dev = await fire('dev', { labels: { env: 'dev' } });
    assert.equal((await alert(prod.alertId)).suppressionId, short.id, 'the oldest window that holds it');
    h.clock.advance(HOUR);
    await h.c.suppression.sweep();
    assert.equal((await alert(prod.alertId)).suppressionId, long.id);
    assert.equal((await alert(prod.alertId)).status, 'suppressed');
    assert.equal((await alert(dev.alertId)).status, 'firing');
    h.clock.advance(2 * HOUR);
    await h.c.suppression.sweep();
    assert.equal((await alert(prod.alertId)).status, 'firing');
  });

  it('a recurring window releases its alerts at the end of each occurrence', async () => {
    const { org, fire, alert } = await fresh();
    await create(org, now(1, { recurrence: 'FREQ=DAILY', timezone: 'Europe/Berlin' }));
    const first = await fire('nightly');
    assert.equal(first.action, 'suppressed');
    h.clock.advance(HOUR);
    await h.c.suppression.sweep();
    assert.equal((await alert(first.alertId)).status, 'firing');
    await h.req('POST', `/api/v1/alerts/${first.alertId}/resolve`, { key: org.key });
    h.clock.advance(23 * HOUR);
    assert.equal((await fire('nightly')).action, 'suppressed', 'the next day\'s occurrence');
  });

  it('deleting a window, or changing it so that it no longer holds them, releases its alerts at once', async () => {
    const { org, fire, alert } = await fresh();
    const w = await create(org, now(1));
    const a = await fire('a', { labels: { env: 'prod' } });
    const b = await fire('b', { labels: { env: 'dev' } });
    const put = await h.req('PUT', `/api/v1/suppression/${w.id}`, { key: org.key, body: { matchers: [{ field: 'labels.env', op: 'eq', value: 'prod' }] } });
    assert.equal(put.status, 200);
    assert.equal((await alert(a.alertId)).status, 'suppressed');
    assert.equal((await alert(b.alertId)).status, 'firing');
    assert.equal((await h.req('DELETE', `/api/v1/suppression/${w.id}`, { key: org.key })).status, 204);
    const back = await alert(a.alertId);
    assert.equal(back.status, 'firing');
    assert.equal(back.suppressionId, null);
  });

  it('a suppressed payload from the sender is the sender\'s: the window\'s end does not release it', async () => {
    const { org, fire, alert } = await fresh();
    await create(org, now(1));
    const a = await fire('held', { fingerprint: 'held' });
    const sent = await fire('held', { fingerprint: 'held', status: 'suppressed' });
    assert.equal(sent.action, 'suppressed');
    assert.equal((await alert(a.alertId)).suppressionId, null);
    h.clock.advance(HOUR);
    await h.c.suppression.sweep();
    assert.equal((await alert(a.alertId)).status, 'suppressed');
  });
});
