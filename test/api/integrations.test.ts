import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

const BASE_URL = 'http://alertflow.test';
const iso = (ms: number): string => new Date(ms).toISOString();

eachStore('integrations API', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  async function create(org: Org, body: unknown = { name: 'Prometheus' }) {
    const r = await h.req('POST', '/api/v1/integrations', { key: org.key, body });
    assert.equal(r.status, 201, r.raw);
    return r.body.data as Record<string, any>;
  }
  const get = (org: Org, id: string) => h.req('GET', `/api/v1/integrations/${id}`, { key: org.key });
  const ingestPath = (token: string) => `/api/inbound/webhook/${token}`;
  const fire = (token: string, title = 'probe') => h.ingest(ingestPath(token), { title, severity: 'low' });

  it('POST with just {name}: 201, preset standard, enabled, a ≥128-bit token and its ingest URL', async () => {
    const org = await h.newOrg();
    const r = await h.req('POST', '/api/v1/integrations', { key: org.key, body: { name: 'Prometheus' } });
    assert.equal(r.status, 201);
    const d = r.body.data;
    assert.equal(d.name, 'Prometheus');
    assert.equal(d.preset, 'standard');
    assert.equal(d.enabled, true);
    assert.equal(d.mapping, null);
    assert.equal(d.clientId, null);
    assert.equal(d.createdAt, iso(h.clock.now()));
    assert.equal(d.updatedAt, d.createdAt);
    assert.match(d.token, /^[A-Za-z0-9_-]{22,}$/, 'base64url, at least 22 characters (128 bits)');
    assert.equal(d.ingestUrl, `${BASE_URL}/api/inbound/webhook/${d.token}`);
    const path = new URL(d.ingestUrl).pathname;
    const sent = await h.ingest(path, { title: 'via ingestUrl', severity: 'high' });
    assert.equal(sent.status, 200, 'the ingest URL works as given');
    const second = await create(org, { name: 'Prometheus' });
    assert.notEqual(second.token, d.token, 'each integration has its own token');
    assert.notEqual(second.id, d.id);
  });

  it('GET lists the organization\'s integrations newest first, and GET /{id} returns one', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    const a = await create(org, { name: 'first' });
    h.clock.advance(1000);
    const b = await create(org, { name: 'second', enabled: false });
    await create(other, { name: 'not mine' });
    const list = await h.req('GET', '/api/v1/integrations', { key: org.key });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data, [b, a]);
    assert.equal(list.body.meta.total, 2);
    assert.equal(list.body.meta.hasMore, false);
    const one = await get(org, a.id);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data, a);
    assert.equal(b.enabled, false, 'enabled can be set at creation');
    const paged = await h.req('GET', '/api/v1/integrations?limit=1', { key: org.key });
    assert.deepEqual(paged.body.data, [b]);
    const rest = await h.req('GET', `/api/v1/integrations?limit=1&cursor=${encodeURIComponent(paged.body.meta.nextCursor)}`, { key: org.key });
    assert.deepEqual(rest.body.data, [a]);
    assert.equal(rest.body.meta.nextCursor, null);
    assert.equal('total' in rest.body.meta, false);
  });

  it('PUT is a partial update that keeps the other fields; PATCH is a synonym', async () => {
    const org = await h.newOrg();
    const d = await create(org, { name: 'Grafana' });
    h.clock.advance(60_000);
    const put = await h.req('PUT', `/api/v1/integrations/${d.id}`, { key: org.key, body: { name: 'Grafana prod' } });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body.data, { ...d, name: 'Grafana prod', updatedAt: iso(h.clock.now()) });
    h.clock.advance(60_000);
    const patch = await h.req('PATCH', `/api/v1/integrations/${d.id}`, { key: org.key, body: { enabled: false } });
    assert.equal(patch.status, 200);
    assert.deepEqual(patch.body.data, { ...d, name: 'Grafana prod', enabled: false, updatedAt: iso(h.clock.now()) });
    const rename = await h.req('PUT', `/api/v1/integrations/${d.id}`, { key: org.key, body: { name: 'Grafana staging' } });
    assert.equal(rename.body.data.enabled, false, 'a rename leaves a disabled integration disabled');
    assert.equal((await fire(d.token)).status, 401);
    const patch2 = await h.req('PATCH', `/api/v1/integrations/${d.id}`, { key: org.key, body: { name: 'Grafana', enabled: true, preset: 'standard' } });
    assert.equal(patch2.status, 200);
    assert.equal(patch2.body.data.name, 'Grafana');
    assert.equal(patch2.body.data.enabled, true);
    assert.deepEqual((await get(org, d.id)).body.data, patch2.body.data, 'the update is stored');
    assert.equal(patch2.body.data.token, d.token, 'the token never changes on update');
    assert.equal(patch2.body.data.createdAt, d.createdAt);
  });

  it('an empty body, an unknown field or a bad value is 400 and changes nothing', async () => {
    const org = await h.newOrg();
    const d = await create(org, { name: 'Stable' });
    const cases: Array<[string, unknown, string]> = [
      ['PUT', {}, ''],
      ['PATCH', {}, ''],
      ['PUT', { token: 'my-own-token' }, '/token'],
      ['PATCH', { name: 'x', orgId: 'org_other' }, '/orgId'],
      ['PUT', { name: 'x', ingestUrl: 'http://evil.test' }, '/ingestUrl'],
      ['PUT', { name: '' }, '/name'],
      ['PUT', { enabled: 'no' }, '/enabled'],
      ['PUT', { preset: 'made-up' }, '/preset'],
    ];
    for (const [method, body, path] of cases) {
      const r = await h.req(method, `/api/v1/integrations/${d.id}`, { key: org.key, body });
      assert.equal(r.status, 400, `${method} ${JSON.stringify(body)}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      if (path) assert.ok(r.body.details.some((x: { path: string }) => x.path === path), `${JSON.stringify(body)}: ${JSON.stringify(r.body.details)}`);
    }
    for (const body of [{}, { name: 'x', token: 'chosen' }, { name: 'x', mappingz: {} }, { name: 'x', enabled: 'yes' }]) {
      const r = await h.req('POST', '/api/v1/integrations', { key: org.key, body });
      assert.equal(r.status, 400, `POST ${JSON.stringify(body)}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
    }
    assert.deepEqual((await get(org, d.id)).body.data, d);
    assert.equal((await h.req('GET', '/api/v1/integrations', { key: org.key })).body.meta.total, 1);
  });

  it('disabling makes its ingest 401; re-enabling makes it work again', async () => {
    const org = await h.newOrg();
    const d = await create(org);
    assert.equal((await fire(d.token, 'before')).status, 200);
    await h.req('PUT', `/api/v1/integrations/${d.id}`, { key: org.key, body: { enabled: false } });
    const off = await fire(d.token, 'while disabled');
    assert.equal(off.status, 401);
    assert.equal(off.body.code, 'UNAUTHORIZED');
    await h.req('PATCH', `/api/v1/integrations/${d.id}`, { key: org.key, body: { enabled: true } });
    assert.equal((await fire(d.token, 'after')).status, 200);
    const titles = (await h.req('GET', '/api/v1/alerts', { key: org.key })).body.data.map((a: { title: string }) => a.title);
    assert.deepEqual(titles.sort(), ['after', 'before'], 'nothing was stored while disabled');
  });

  it('DELETE: 204, then its token is 401 and GET is 404, and the alerts it created are kept', async () => {
    const org = await h.newOrg();
    const d = await create(org);
    const sent = await fire(d.token, 'kept');
    const alertId = sent.body.data.alerts[0].alertId;
    const del = await h.req('DELETE', `/api/v1/integrations/${d.id}`, { key: org.key });
    assert.equal(del.status, 204);
    assert.equal(del.raw, '');
    const after = await fire(d.token, 'too late');
    assert.equal(after.status, 401);
    const gone = await get(org, d.id);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'NOT_FOUND');
    assert.equal((await h.req('GET', '/api/v1/integrations', { key: org.key })).body.meta.total, 0);
    const alert = await h.req('GET', `/api/v1/alerts/${alertId}`, { key: org.key });
    assert.equal(alert.status, 200);
    assert.equal(alert.body.data.title, 'kept');
    assert.equal(alert.body.data.integrationId, d.id);
    assert.equal((await h.req('GET', '/api/v1/alerts', { key: org.key })).body.meta.total, 1);
    for (const [method, body] of [['DELETE', undefined], ['PUT', { name: 'x' }], ['PATCH', { enabled: true }]] as const) {
      const r = await h.req(method, `/api/v1/integrations/${d.id}`, { key: org.key, ...(body && { body }) });
      assert.equal(r.status, 404, `${method} after delete`);
    }
  });

  it('another organization\'s integration is 404, like a missing one, and stays untouched', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    const theirs = await create(other, { name: 'theirs' });
    const missing = 'int_doesnotexist';
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'hijacked' }], ['PATCH', { enabled: false }], ['DELETE', undefined]] as const) {
      const a = await h.req(method, `/api/v1/integrations/${theirs.id}`, { key: org.key, ...(body && { body }) });
      const b = await h.req(method, `/api/v1/integrations/${missing}`, { key: org.key, ...(body && { body }) });
      assert.equal(a.status, 404, method);
      assert.deepEqual(a.body, b.body, method);
    }
    assert.deepEqual((await get(other, theirs.id)).body.data, theirs);
    assert.equal((await fire(theirs.token)).status, 200);
  });

  it('needs integrations:read to read and integrations:write to change', async () => {
    const org = await h.newOrg();
    const d = await create(org);
    const made = await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'ro', scopes: ['integrations:read'] } });
    const ro = made.body.data.key as string;
    assert.equal((await h.req('GET', `/api/v1/integrations/${d.id}`, { key: ro })).status, 200);
    for (const [method, url, body] of [
      ['POST', '/api/v1/integrations', { name: 'x' }],
      ['PUT', `/api/v1/integrations/${d.id}`, { enabled: false }],
      ['PATCH', `/api/v1/integrations/${d.id}`, { enabled: false }],
      ['DELETE', `/api/v1/integrations/${d.id}`, undefined],
    ] as const) {
      const r = await h.req(method, url, { key: ro, ...(body && { body }) });
      assert.equal(r.status, 403, `${method} ${url}`);
      assert.match(r.body.error, /integrations:write/);
    }
    const noRead = await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'alerts', scopes: ['alerts:read'] } });
    const r = await h.req('GET', '/api/v1/integrations', { key: noRead.body.data.key });
    assert.equal(r.status, 403);
    assert.match(r.body.error, /integrations:read/);
    assert.deepEqual((await get(org, d.id)).body.data, d);
  });

  it('token and ingestUrl are masked (last 4 characters) for callers without integrations:write, in list and get', async () => {
    const org = await h.newOrg();
    const d = await create(org);
    const ro = (await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'ro', scopes: ['integrations:read'] } })).body.data.key as string;
    const masked = `…${d.token.slice(-4)}`;
    const one = await h.req('GET', `/api/v1/integrations/${d.id}`, { key: ro });
    const list = await h.req('GET', '/api/v1/integrations', { key: ro });
    for (const [what, r, got] of [['get', one, one.body.data], ['list', list, list.body.data[0]]] as const) {
      assert.equal(got.token, masked, what);
      assert.equal(got.ingestUrl, `${BASE_URL}/api/inbound/webhook/${masked}`, what);
      assert.ok(!r.raw.includes(d.token), `${what}: the token appears nowhere in the answer`);
    }
    const fired = await h.ingest(new URL(one.body.data.ingestUrl).pathname, { title: 'with the masked url', severity: 'low' });
    assert.equal(fired.status, 401, 'the masked URL is no credential');
    // A caller holding integrations:write sees it whole, as the creator did.
    const rw = (await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'rw', scopes: ['integrations:read', 'integrations:write'] } })).body.data.key as string;
    assert.equal((await h.req('GET', `/api/v1/integrations/${d.id}`, { key: rw })).body.data.token, d.token);
    assert.equal((await h.req('GET', '/api/v1/integrations', { key: rw })).body.data[0].ingestUrl, d.ingestUrl);
  });

  it('records integration.created, integration.updated and integration.deleted audit events', async () => {
    const org = await h.newOrg();
    const keys = await h.req('GET', '/api/v1/api-keys', { key: org.key });
    const keyId = keys.body.data[0].id;
    const d = await create(org, { name: 'Audited' });
    await h.req('PUT', `/api/v1/integrations/${d.id}`, { key: org.key, body: { name: 'Audited 2', enabled: false } });
    await h.req('DELETE', `/api/v1/integrations/${d.id}`, { key: org.key });
    for (const action of ['integration.created', 'integration.updated', 'integration.deleted']) {
      const r = await h.req('GET', `/api/v1/audit-log?action=${action}`, { key: org.key });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.length, 1, action);
      const [e] = r.body.data;
      assert.equal(e.action, action);
      assert.deepEqual(e.target, { type: 'integration', id: d.id });
      assert.deepEqual(e.actor, { type: 'api_key', id: keyId });
      assert.ok(!JSON.stringify(e).includes(d.token), 'the token is a secret and is not in the audit log');
    }
    const failed = await h.req('PUT', '/api/v1/integrations/int_doesnotexist', { key: org.key, body: { name: 'x' } });
    assert.equal(failed.status, 404);
    const updated = await h.req('GET', '/api/v1/audit-log?action=integration.updated', { key: org.key });
    assert.equal(updated.body.data.length, 1, 'a failed update records nothing');
  });
});
