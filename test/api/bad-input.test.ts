import assert from 'node:assert/strict';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { clientErrorHandler } from '../../src/http/errors.ts';
import { startHarness, type Harness, type Org, type Res } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

const MiB = 1024 * 1024;
const JSON_CT = { 'content-type': 'application/json' };

/** The contract's error envelope, exactly: `{error, code, details}`, JSON, and no internals. */
function assertError(r: Res, status: number, code: string, what = ''): void {
  assert.equal(r.status, status, `${what}: ${r.raw.slice(0, 300)}`);
  assert.match(String(r.headers['content-type']), /^application\/json/, what);
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'details', 'error'], what);
  assert.equal(r.body.code, code, what);
  assert.equal(typeof r.body.error, 'string', what);
  assert.ok(r.body.error.length > 0, what);
  if (r.body.details !== null) {
    assert.ok(Array.isArray(r.body.details), what);
    for (const d of r.body.details) {
      assert.deepEqual(Object.keys(d).sort(), ['message', 'path'], what);
      assert.equal(typeof d.path, 'string', what);
      assert.equal(typeof d.message, 'string', what);
    }
  }
  assert.doesNotMatch(r.raw, /\.ts:\d+|node_modules|SyntaxError|stack/i, `${what}: no internals in the body`);
}

const detailPaths = (r: Res): string[] => (r.body.details ?? []).map((d: { path: string }) => d.path);

/** `{"a":{"a":…}}` nested `depth` levels (the outer object counts as one). */
const nestedObject = (depth: number): string => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

/** A JSON text of exactly `size` bytes: `body` plus a padding field. */
function jsonOfSize(body: Record<string, unknown>, size: number): string {
  const base = JSON.stringify({ ...body, pad: '' });
  const text = JSON.stringify({ ...body, pad: 'x'.repeat(size - base.length) });
  assert.equal(Buffer.byteLength(text), size);
  return text;
}

function assertNotPolluted(): void {
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false, 'Object.prototype was polluted');
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'a fresh object sees a polluted prototype');
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'isAdmin'), false, 'Object.prototype was polluted');
}

const PROTO_BODIES = [
  '{"name":"x","__proto__":{"polluted":"yes"}}',
  '{"name":"x","nested":{"__proto__":{"polluted":"yes","isAdmin":true}}}',
  '{"name":"x","list":[{"__proto__":{"polluted":"yes"}}]}',
  '{"name":"x","\\u005f\\u005fproto\\u005f\\u005f":{"polluted":"yes"}}',
  '{"name":"x","constructor":{"prototype":{"polluted":"yes"}}}',
  '{"name":"x","nested":{"constructor":{"prototype":{"isAdmin":true}}}}',
];

const MALFORMED = ['{', '{"name": "x"', "{'name':'x'}", '{"name":"x",}', 'nul', '{"name":"x"} trailing', '{"name":"x"}{}'];
/** An empty body is no body: 400 VALIDATION_ERROR where one is needed, accepted where none is. */
const EMPTY = ['', '   '];

interface Ctx {
  org: Org;
  integ: { id: string; path: string; token: string };
  alertId: string;
}

interface BodyRoute {
  name: string;
  method: string;
  url: (c: Ctx) => string;
  /** A body that succeeds, so that only the fault under test can fail the request. */
  valid: (c: Ctx) => Record<string, unknown>;
}

/** REST operations that take a body; each valid body changes what `snapshot` sees. */
const BODY_ROUTES: BodyRoute[] = [
  { name: 'POST /integrations', method: 'POST', url: () => '/api/v1/integrations', valid: () => ({ name: 'created' }) },
  { name: 'POST /api-keys', method: 'POST', url: () => '/api/v1/api-keys', valid: () => ({ name: 'k', scopes: ['alerts:read'] }) },
  { name: 'POST /alerts/bulk', method: 'POST', url: () => '/api/v1/alerts/bulk', valid: (c) => ({ action: 'acknowledge', ids: [c.alertId] }) },
  { name: 'PUT /integrations/{id}', method: 'PUT', url: (c) => `/api/v1/integrations/${c.integ.id}`, valid: () => ({ name: 'renamed' }) },
  { name: 'PATCH /integrations/{id}', method: 'PATCH', url: (c) => `/api/v1/integrations/${c.integ.id}`, valid: () => ({ enabled: false }) },
];

eachStore('bad input is refused and stores nothing', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  /** Everything a bad request could have changed, as seen through the API. */
  async function snapshot(org: Org) {
    const get = async (url: string) => {
      const r = await h.req('GET', url, { key: org.key });
      assert.equal(r.status, 200, r.raw);
      return r.body;
    };
    const alerts = await get('/api/v1/alerts?limit=100');
    const integrations = await get('/api/v1/integrations?limit=100');
    const keys = await get('/api/v1/api-keys?limit=100');
    return {
      alertTotal: alerts.meta.total,
      alerts: alerts.data.map((a: { id: string; status: string; occurrences: number; title: string }) => `${a.id}:${a.status}:${a.occurrences}:${a.title}`).sort(),
      integrations: integrations.data.map((i: { id: string; name: string; enabled: boolean }) => `${i.id}:${i.name}:${i.enabled}`).sort(),
      integrationTotal: integrations.meta.total,
      keyTotal: keys.meta.total,
    };
  }

  /** A fresh organization with one integration and one firing alert. */
  async function fresh(): Promise<Ctx & { snapshot: () => ReturnType<typeof snapshot> }> {
    const org = await h.newOrg();
    const integ = await h.integration(org);
    const r = await h.ingest(integ.path, { title: 'baseline', severity: 'low' });
    assert.equal(r.status, 200, r.raw);
    return { org, integ, alertId: r.body.data.alerts[0].alertId, snapshot: () => snapshot(org) };
  }

  const send = (c: Ctx, route: BodyRoute, rawBody: string | Buffer, headers: Record<string, string> = JSON_CT, key: string | null = c.org.key) =>
    h.req(route.method, route.url(c), { key, rawBody, headers });

  it('control: a well-formed body on each route succeeds and changes what the checks below look at', async () => {
    for (const route of BODY_ROUTES) {
      const c = await fresh();
      const before = await c.snapshot();
      const r = await send(c, route, JSON.stringify(route.valid(c)), { 'content-type': 'application/json; charset=utf-8' });
      assert.ok(r.status === 200 || r.status === 201, `${route.name}: ${r.raw}`);
      assert.notDeepEqual(await c.snapshot(), before, `${route.name} changed nothing the snapshot sees`);
    }
  });

  it('malformed JSON is 400 INVALID_JSON on every body route', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    for (const route of BODY_ROUTES) {
      for (const text of MALFORMED) {
        assertError(await send(c, route, text), 400, 'INVALID_JSON', `${route.name} ${JSON.stringify(text)}`);
      }
    }
    assert.deepEqual(await c.snapshot(), before);
  });

  it('an empty JSON body is a missing body: 400 VALIDATION_ERROR where a body is needed, fine where none is', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    for (const route of BODY_ROUTES) {
      for (const text of EMPTY) assertError(await send(c, route, text), 400, 'VALIDATION_ERROR', `${route.name} ${JSON.stringify(text)}`);
    }
    for (const text of EMPTY) assertError(await h.req('POST', c.integ.path, { key: null, rawBody: text, headers: JSON_CT }), 400, 'VALIDATION_ERROR', `ingest ${JSON.stringify(text)}`);
    assert.deepEqual(await c.snapshot(), before);
    const alert = await h.ingest(c.integ.path, { title: 'ack me', severity: 'low' });
    const acked = await h.req('POST', `/api/v1/alerts/${alert.body.data.alerts[0].alertId}/acknowledge`, { key: c.org.key, rawBody: '', headers: JSON_CT });
    assert.equal(acked.status, 200, acked.raw);
    assert.equal(acked.body.data.status, 'acknowledged');
  });

  it('valid JSON that is not an object is 400 VALIDATION_ERROR, not a crash', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    for (const route of BODY_ROUTES) {
      for (const text of ['null', '[]', '[{"name":"x"}]', '"x"', '42', 'true']) {
        assertError(await send(c, route, text), 400, 'VALIDATION_ERROR', `${route.name} ${text}`);
      }
    }
    assert.deepEqual(await c.snapshot(), before);
  });

  it('a body that is not application/json is 415 UNSUPPORTED_MEDIA_TYPE, including one with no content type', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    for (const route of BODY_ROUTES) {
      const json = JSON.stringify(route.valid(c));
      const cases: Array<[string, string, Record<string, string>]> = [
        ['text/plain', json, { 'content-type': 'text/plain' }],
        ['no content type', json, {}],
        ['form', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }],
        ['multipart', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--', { 'content-type': 'multipart/form-data; boundary=b' }],
        ['xml', '<name>x</name>', { 'content-type': 'application/xml' }],
        ['look-alike', json, { 'content-type': 'application/jsonx' }],
        ['suffix type', json, { 'content-type': 'application/vnd.api+json' }],
      ];
      for (const [label, body, headers] of cases) {
        assertError(await send(c, route, body, headers), 415, 'UNSUPPORTED_MEDIA_TYPE', `${route.name} ${label}`);
      }
    }
    // Write operations without a body schema read a sent body too (and document 413/415).
    const plain = { rawBody: 'resolve it', headers: { 'content-type': 'text/plain' }, key: c.org.key };
    assertError(await h.req('POST', `/api/v1/alerts/${c.alertId}/acknowledge`, plain), 415, 'UNSUPPORTED_MEDIA_TYPE', 'acknowledge');
    assertError(await h.req('POST', `/api/v1/alerts/${c.alertId}/resolve`, plain), 415, 'UNSUPPORTED_MEDIA_TYPE', 'resolve');
    assertError(await h.req('DELETE', `/api/v1/integrations/${c.integ.id}`, plain), 415, 'UNSUPPORTED_MEDIA_TYPE', 'delete integration');
    assert.deepEqual(await c.snapshot(), before);
  });

  it('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE; exactly 1 MiB is read and judged on its content', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    for (const route of BODY_ROUTES) {
      const over = jsonOfSize(route.valid(c), MiB + 1);
      assertError(await send(c, route, over), 413, 'PAYLOAD_TOO_LARGE', `${route.name} 1 MiB + 1`);
      assertError(await send(c, route, 'x'.repeat(3 * MiB)), 413, 'PAYLOAD_TOO_LARGE', `${route.name} 3 MiB of garbage`);
      const exact = await send(c, route, jsonOfSize(route.valid(c), MiB));
      assertError(exact, 400, 'VALIDATION_ERROR', `${route.name} exactly 1 MiB`);
      assert.ok(detailPaths(exact).includes('/pad'), `${route.name}: ${exact.raw.slice(0, 200)}`);
    }
    const big = { rawBody: 'x'.repeat(MiB + 1), headers: JSON_CT, key: c.org.key };
    assertError(await h.req('POST', `/api/v1/alerts/${c.alertId}/acknowledge`, big), 413, 'PAYLOAD_TOO_LARGE', 'acknowledge');
    assert.deepEqual(await c.snapshot(), before);
  });

  it('deep nesting is 400, also far past the limit, and never a crash', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    for (const route of BODY_ROUTES) {
      const valid = JSON.stringify(route.valid(c)).slice(0, -1);
      for (const depth of [40, 1000]) {
        const r = await send(c, route, `${valid},"deep":${nestedObject(depth)}}`);
        assertError(r, 400, 'VALIDATION_ERROR', `${route.name} depth ${depth}`);
        // Refused for its depth (before any rule about the field), and the answer says so.
        assert.match(JSON.stringify(r.body), /nest/i, `${route.name} depth ${depth}: ${r.raw}`);
      }
      const arrays = await send(c, route, `${valid},"deep":${'['.repeat(50_000)}${']'.repeat(50_000)}}`);
      assertError(arrays, 400, 'VALIDATION_ERROR', `${route.name} 50 000 nested arrays`);
      assert.match(JSON.stringify(arrays.body), /nest/i, `${route.name} 50 000 nested arrays: ${arrays.raw}`);
    }
    assert.deepEqual(await c.snapshot(), before);
  });

  it('__proto__ and constructor.prototype keys are 400 and Object.prototype stays clean', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    for (const route of BODY_ROUTES) {
      for (const text of PROTO_BODIES) {
        assertError(await send(c, route, text), 400, 'VALIDATION_ERROR', `${route.name} ${text}`);
        assertNotPolluted();
      }
    }
    assert.deepEqual(await c.snapshot(), before);
    // The app still answers normally, and nothing it sends carries the injected property.
    const r = await h.req('GET', '/api/v1/integrations', { key: c.org.key });
    assert.equal(r.status, 200);
    assert.doesNotMatch(r.raw, /polluted|isAdmin/);
  });

  it('unknown body fields are 400 VALIDATION_ERROR naming each field (no mass assignment)', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    const cases: Array<[BodyRoute, Record<string, unknown>, string[]]> = [
      [BODY_ROUTES[0] as BodyRoute, { name: 'x', token: 'chosen-token', orgId: 'org_other' }, ['/token', '/orgId']],
      [BODY_ROUTES[0] as BodyRoute, { name: 'x', id: 'int_mine', acceptedCount: 5 }, ['/id', '/acceptedCount']],
      [BODY_ROUTES[1] as BodyRoute, { name: 'k', scopes: ['alerts:read'], key: 'af_test_chosen', orgId: 'org_other' }, ['/key', '/orgId']],
      [BODY_ROUTES[1] as BodyRoute, { name: 'k', scopes: ['alerts:read'], revokedAt: null }, ['/revokedAt']],
      [BODY_ROUTES[2] as BodyRoute, { action: 'resolve', ids: [c.alertId], force: true }, ['/force']],
      [BODY_ROUTES[3] as BodyRoute, { name: 'y', token: 'chosen-token' }, ['/token']],
      [BODY_ROUTES[4] as BodyRoute, { createdAt: '2020-01-01T00:00:00.000Z' }, ['/createdAt']],
    ];
    for (const [route, body, paths] of cases) {
      const r = await send(c, route, JSON.stringify(body));
      assertError(r, 400, 'VALIDATION_ERROR', `${route.name} ${JSON.stringify(body)}`);
      for (const p of paths) assert.ok(detailPaths(r).includes(p), `${route.name}: details ${JSON.stringify(r.body.details)} should name ${p}`);
    }
    assert.deepEqual(await c.snapshot(), before);
  });

  it('values that break a rule are 400 VALIDATION_ERROR with the path of the value', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    const [integrations, keys, bulk, put] = BODY_ROUTES as [BodyRoute, BodyRoute, BodyRoute, BodyRoute];
    const cases: Array<[BodyRoute, unknown, string]> = [
      [integrations, {}, '/name'],
      [integrations, { name: '' }, '/name'],
      [integrations, { name: 7 }, '/name'],
      [integrations, { name: 'x', preset: 'nagios-9000' }, '/preset'],
      [integrations, { name: 'x', enabled: 'yes' }, '/enabled'],
      [keys, { name: 'k', scopes: ['alerts:read', 'root:all'] }, '/scopes/1'],
      [keys, { name: 'k', scopes: [] }, '/scopes'],
      [keys, { name: 'k', scopes: ['alerts:read', 'alerts:read'] }, '/scopes'],
      [keys, { name: 'k', scopes: ['alerts:read'], expiresAt: 'tomorrow' }, '/expiresAt'],
      [keys, { name: 'k', scopes: ['alerts:read'], expiresAt: '2020-01-01T00:00:00.000Z' }, '/expiresAt'],
      [bulk, { action: 'delete', ids: [c.alertId] }, '/action'],
      [bulk, { action: 'resolve', ids: [] }, '/ids'],
      [bulk, { action: 'resolve', ids: Array.from({ length: 101 }, () => c.alertId) }, '/ids'],
      [bulk, { action: 'resolve', ids: [c.alertId, 5] }, '/ids/1'],
      [put, {}, ''],
      [put, { name: '' }, '/name'],
    ];
    for (const [route, body, path] of cases) {
      const r = await send(c, route, JSON.stringify(body));
      assertError(r, 400, 'VALIDATION_ERROR', `${route.name} ${JSON.stringify(body).slice(0, 80)}`);
      assert.ok(detailPaths(r).includes(path), `${route.name} ${JSON.stringify(body).slice(0, 80)}: details ${JSON.stringify(r.body.details)} should name "${path}"`);
    }
    assert.deepEqual(await c.snapshot(), before);
  });

  it('length and count rules are said in words a form can show next to its field', async () => {
    const c = await fresh();
    const [integrations, keys, bulk] = BODY_ROUTES as [BodyRoute, BodyRoute, BodyRoute];
    const cases: Array<[BodyRoute, unknown, string, string]> = [
      [integrations, { name: '' }, '/name', 'must not be empty'],
      [integrations, { name: 'x'.repeat(201) }, '/name', 'must be at most 200 characters'],
      [keys, { name: 'k', scopes: [] }, '/scopes', 'needs at least one entry'],
      [bulk, { action: 'resolve', ids: Array.from({ length: 101 }, () => c.alertId) }, '/ids', 'takes at most 100 entries'],
    ];
    for (const [route, body, path, message] of cases) {
      const r = await send(c, route, JSON.stringify(body));
      assert.deepEqual(r.body.details, [{ path, message }], `${route.name} ${JSON.stringify(body).slice(0, 60)}`);
    }
  });

  it('an update body gets no defaults filled in: a rename keeps a disabled integration disabled', async () => {
    const c = await fresh();
    const off = await h.integration(c.org, { name: 'off', enabled: false });
    for (const method of ['PUT', 'PATCH']) {
      const r = await h.req(method, `/api/v1/integrations/${off.id}`, { key: c.org.key, body: { name: `renamed by ${method}` } });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.name, `renamed by ${method}`);
      assert.equal(r.body.data.enabled, false, `${method} with only a name re-enabled the integration`);
      assertError(await h.ingest(off.path, { title: 'x', severity: 'low' }), 401, 'UNAUTHORIZED', `${method}: the disabled token still refuses alerts`);
    }
  });

  it('limit outside 1–100 or not an integer is 400 on every list', async () => {
    const c = await fresh();
    for (const list of ['/api/v1/alerts', '/api/v1/integrations', '/api/v1/api-keys', '/api/v1/users', '/api/v1/audit-log']) {
      for (const bad of ['0', '101', '-1', 'abc', '1.5', '', '1000000000000', '10abc']) {
        const r = await h.req('GET', `${list}?limit=${encodeURIComponent(bad)}`, { key: c.org.key });
        assertError(r, 400, 'VALIDATION_ERROR', `${list}?limit=${bad}`);
        assert.ok(detailPaths(r).includes('/limit'), `${list}?limit=${bad}: ${r.raw}`);
      }
      for (const good of [1, 100]) {
        const r = await h.req('GET', `${list}?limit=${good}`, { key: c.org.key });
        assert.equal(r.status, 200, `${list}?limit=${good}: ${r.raw}`);
        assert.equal(r.body.meta.limit, good);
      }
    }
  });

  it('a garbage, tampered, foreign-list or foreign-organization cursor is 400 VALIDATION_ERROR', async () => {
    const c = await fresh();
    await h.ingest(c.integ.path, { title: 'second', severity: 'low' });
    await h.integration(c.org);
    assert.equal((await h.req('POST', '/api/v1/api-keys', { key: c.org.key, body: { name: 'k2', scopes: ['alerts:read'] } })).status, 201);
    const cursorOf = async (url: string, key: string) => {
      const r = await h.req('GET', url, { key });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.meta.hasMore, true, url);
      return r.body.meta.nextCursor as string;
    };
    const alerts = await cursorOf('/api/v1/alerts?limit=1', c.org.key);
    const keys = await cursorOf('/api/v1/api-keys?limit=1', c.org.key);
    const integrations = await cursorOf('/api/v1/integrations?limit=1', c.org.key);
    const firing = await cursorOf('/api/v1/alerts?limit=1&status=firing', c.org.key);
    const other = await fresh();
    await h.ingest(other.integ.path, { title: 'theirs', severity: 'low' });
    const otherAlerts = await cursorOf('/api/v1/alerts?limit=1', other.org.key);

    // Controls: each cursor works on the list it came from.
    for (const [url, cursor, key] of [['/api/v1/alerts', alerts, c.org.key], ['/api/v1/alerts?status=firing', firing, c.org.key], ['/api/v1/api-keys', keys, c.org.key], ['/api/v1/integrations', integrations, c.org.key], ['/api/v1/alerts', otherAlerts, other.org.key]] as const) {
      const r = await h.req('GET', `${url}${url.includes('?') ? '&' : '?'}limit=1&cursor=${encodeURIComponent(cursor)}`, { key });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.length, 1);
      assert.equal(r.body.meta.total, undefined, 'total only on the first page');
    }

    const [body, sig] = alerts.split('.') as [string, string];
    const [createdAt, id] = JSON.parse(Buffer.from(body, 'base64url').toString()) as [number, string];
    const reencode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    const bad: Array<[string, string, string]> = [
      ['garbage', '/api/v1/alerts', 'abc'],
      ['garbage with a dot', '/api/v1/alerts', 'a.b'],
      ['three parts', '/api/v1/alerts', `${alerts}.x`],
      ['symbols', '/api/v1/alerts', '!!!%%%'],
      ['body only', '/api/v1/alerts', body],
      ['signature flipped', '/api/v1/alerts', `${body}.${flip(sig)}`],
      ['signature extended', '/api/v1/alerts', `${alerts}A`],
      ['time changed', '/api/v1/alerts', `${reencode([createdAt + 1, id])}.${sig}`],
      ['id changed', '/api/v1/alerts', `${reencode([createdAt, 'alt_someoneelse'])}.${sig}`],
      ['not JSON inside', '/api/v1/alerts', `${Buffer.from('[1,').toString('base64url')}.${sig}`],
      ['too long', '/api/v1/alerts', 'x'.repeat(600)],
      ['api-keys cursor on alerts', '/api/v1/alerts', keys],
      ['integrations cursor on alerts', '/api/v1/alerts', integrations],
      ['alerts cursor on integrations', '/api/v1/integrations', alerts],
      ['alerts cursor on api-keys', '/api/v1/api-keys', alerts],
      ['other organization', '/api/v1/alerts', otherAlerts],
      ['cursor of a filtered list on the unfiltered one', '/api/v1/alerts', firing],
      ['cursor of the unfiltered list on a filtered one', '/api/v1/alerts?status=firing', alerts],
    ];
    for (const [label, url, cursor] of bad) {
      const r = await h.req('GET', `${url}${url.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`, { key: c.org.key });
      assertError(r, 400, 'VALIDATION_ERROR', label);
      assert.ok(detailPaths(r).includes('/cursor'), `${label}: ${r.raw}`);
    }
  });

  it('ingest: bad JSON, content type, size, nesting, prototype keys and non-object bodies are refused and store nothing', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    const post = (rawBody: string | Buffer, headers: Record<string, string> = JSON_CT) => h.req('POST', c.integ.path, { key: null, rawBody, headers });
    const cases: Array<[string, Res, number, string]> = [];
    for (const text of MALFORMED) cases.push([`malformed ${JSON.stringify(text)}`, await post(text), 400, 'INVALID_JSON']);
    const ok = JSON.stringify({ title: 'should not be stored', severity: 'critical' });
    cases.push(['text/plain', await post(ok, { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE']);
    cases.push(['no content type', await post(ok, {}), 415, 'UNSUPPORTED_MEDIA_TYPE']);
    cases.push(['form', await post('title=x&severity=low', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'UNSUPPORTED_MEDIA_TYPE']);
    cases.push(['1 MiB + 1', await post(jsonOfSize({ title: 'big', severity: 'low' }, MiB + 1)), 413, 'PAYLOAD_TOO_LARGE']);
    cases.push(['5 MiB', await post(Buffer.alloc(5 * MiB, 0x61)), 413, 'PAYLOAD_TOO_LARGE']);
    // Deep nesting in a field ingest would otherwise ignore, so only the depth limit can refuse it.
    cases.push(['depth 40', await post(`{"title":"deep","severity":"low","extra":${nestedObject(40)}}`), 400, 'VALIDATION_ERROR']);
    cases.push(['depth 50 000', await post(`{"title":"deep","severity":"low","x":${'['.repeat(50_000)}${']'.repeat(50_000)}}`), 400, 'VALIDATION_ERROR']);
    for (const text of PROTO_BODIES) {
      const payload = text.replace('"name":"x"', '"title":"proto","severity":"low"');
      cases.push([`prototype ${payload}`, await post(payload), 400, 'VALIDATION_ERROR']);
      assertNotPolluted();
    }
    cases.push(['labels.__proto__', await post('{"title":"p","severity":"low","labels":{"__proto__":{"polluted":"yes"}}}'), 400, 'VALIDATION_ERROR']);
    for (const text of ['null', '[]', '[{"title":"x","severity":"low"}]', '"x"', '42']) cases.push([`non-object ${text}`, await post(text), 400, 'VALIDATION_ERROR']);
    for (const [label, r, status, code] of cases) {
      assertError(r, status, code, label);
      // A known token: every answer carries the budget it counted against.
      for (const hdr of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.ok(r.headers[hdr] !== undefined, `${label}: ${hdr} missing`);
    }
    assertNotPolluted();
    assert.deepEqual(await c.snapshot(), before);
    // Control: nesting within the limit, as monitoring tools send it, is accepted.
    const nested = await post(`{"title":"nested","severity":"low","extra":${nestedObject(20)}}`);
    assert.equal(nested.status, 200, nested.raw);
    assert.equal((await c.snapshot()).alertTotal, before.alertTotal + 1);
  });

  it('ingest: missing or invalid fields are 400 VALIDATION_ERROR naming them, storing nothing', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    const cases: Array<[unknown, string[]]> = [
      [{}, ['/title', '/severity']],
      [{ title: 'x' }, ['/severity']],
      [{ severity: 'low' }, ['/title']],
      [{ title: 'x', severity: 'apocalyptic' }, ['/severity']],
      [{ title: 'x', severity: 'low', status: 'exploded' }, ['/status']],
      [{ title: 42, severity: 'low' }, ['/title']],
      [{ title: 'x', severity: 'low', labels: 'host=db1' }, ['/labels']],
      [{ title: 'x', severity: 'low', labels: { nested: { no: 1 } } }, ['/labels/nested']],
      [{ status: 'resolved' }, []],
    ];
    for (const [payload, paths] of cases) {
      const r = await h.ingest(c.integ.path, payload);
      assertError(r, 400, 'VALIDATION_ERROR', JSON.stringify(payload));
      assert.ok(r.body.details.length > 0, JSON.stringify(payload));
      for (const p of paths) assert.ok(detailPaths(r).includes(p), `${JSON.stringify(payload)}: details ${JSON.stringify(r.body.details)} should name ${p}`);
    }
    assert.deepEqual(await c.snapshot(), before);
  });

  it('ingest: oversized titles, label and annotation keys, values and counts are 400 naming the path; a page of 100 of the largest alerts stays under 6 MB', async () => {
    const c = await fresh();
    const before = await c.snapshot();
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: 'x'.repeat(1025) }, '/title'],
      [{ labels: { ['k'.repeat(100_000)]: 'v' } }, `/labels/${'k'.repeat(32)}…`],
      [{ labels: { host: 'v'.repeat(4097) } }, '/labels/host'],
      [{ annotations: { runbook: 'v'.repeat(4097) } }, '/annotations/runbook'],
      [{ labels: many }, '/labels'],
      [{ annotations: many }, '/annotations'],
    ];
    for (const [fields, path] of cases) {
      const r = await h.ingest(c.integ.path, { title: 'big', severity: 'low', ...fields });
      assertError(r, 400, 'VALIDATION_ERROR', path);
      assert.deepEqual(detailPaths(r), [path]);
      assert.ok(r.raw.length < 2000, 'the answer does not echo the oversized value');
    }
    assert.deepEqual(await c.snapshot(), before);

    const fill = (n: number, size: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${'k'.repeat(250)}${i}`, 'v'.repeat(size)]));
    for (let i = 0; i < 100; i++) {
      await h.ingestAlert(c.integ.path, {
        title: `${i} ${'t'.repeat(1000)}`, severity: 'low', source: 's'.repeat(1024), description: 'd'.repeat(15_000),
        labels: fill(4, 3800), annotations: fill(4, 3800),
      });
    }
    const page = await h.req('GET', '/api/v1/alerts?limit=100', { key: c.org.key });
    assert.equal(page.body.data.length, 100);
    assert.ok(page.raw.length < 6_000_000, `a page of 100 is ${page.raw.length} bytes`);
  });

  it('ingest order of checks: token (401) → content type (415) → size (413) → JSON (400) → fields (400)', async () => {
    const c = await fresh();
    const disabled = await h.integration(c.org, { name: 'off', enabled: false });
    const before = await c.snapshot();
    const bigMalformed = '{'.repeat(MiB + 10);
    const to = (path: string, rawBody: string, headers: Record<string, string>) => h.req('POST', path, { key: null, rawBody, headers });
    const text = { 'content-type': 'text/plain' };
    const tooLong = [['token of 150 characters', `/api/inbound/webhook/${'x'.repeat(150)}`], ['token of 5,000 characters', `/api/inbound/webhook/${c.integ.token.repeat(160)}`]] as const;
    for (const [label, path] of [['unknown token', '/api/inbound/webhook/not-a-real-token'], ['disabled integration', disabled.path], ...tooLong] as const) {
      assertError(await to(path, bigMalformed, text), 401, 'UNAUTHORIZED', `${label}, text/plain, oversized, malformed`);
      assertError(await to(path, bigMalformed, JSON_CT), 401, 'UNAUTHORIZED', `${label}, oversized, malformed`);
      assertError(await to(path, '{', JSON_CT), 401, 'UNAUTHORIZED', `${label}, malformed`);
      assertError(await to(path, '{"title":"x","severity":"low"}', JSON_CT), 401, 'UNAUTHORIZED', `${label}, valid`);
    }
    assertError(await to(c.integ.path, bigMalformed, text), 415, 'UNSUPPORTED_MEDIA_TYPE', 'text/plain, oversized, malformed');
    assertError(await to(c.integ.path, bigMalformed, {}), 415, 'UNSUPPORTED_MEDIA_TYPE', 'no type, oversized, malformed');
    assertError(await to(c.integ.path, bigMalformed, JSON_CT), 413, 'PAYLOAD_TOO_LARGE', 'oversized, malformed');
    assertError(await to(c.integ.path, `{"title":"x","severity":"low","x":${nestedObject(40)}`, JSON_CT), 400, 'INVALID_JSON', 'malformed and deep');
    assertError(await to(c.integ.path, '{"severity":"low"', JSON_CT), 400, 'INVALID_JSON', 'malformed, missing title');
    assertError(await to(c.integ.path, '{"severity":"low"}', JSON_CT), 400, 'VALIDATION_ERROR', 'missing title');
    assert.deepEqual(await c.snapshot(), before);
  });

  it('REST order of checks: 401 → 403 → 415/413/400 → 404, whatever else is wrong with the request', async () => {
    const c = await fresh();
    const created = await h.req('POST', '/api/v1/api-keys', { key: c.org.key, body: { name: 'read only', scopes: ['integrations:read', 'alerts:read'] } });
    assert.equal(created.status, 201, created.raw);
    const readOnly = created.body.data.key as string;
    const before = await c.snapshot();
    const bodies: Array<[string, string | Buffer, Record<string, string>]> = [
      ['malformed', '{', JSON_CT],
      ['text/plain', '{"name":"x"}', { 'content-type': 'text/plain' }],
      ['oversized', jsonOfSize({ name: 'x' }, MiB + 1), JSON_CT],
      ['unknown field', '{"name":"x","token":"mine"}', JSON_CT],
      ['prototype key', PROTO_BODIES[0] as string, JSON_CT],
      ['valid', '{"name":"x"}', JSON_CT],
    ];
    const targets: Array<[string, string]> = [
      ['POST', '/api/v1/integrations'],
      ['PUT', `/api/v1/integrations/${c.integ.id}`],
      ['PUT', '/api/v1/integrations/int_doesnotexist'],
    ];
    for (const [method, url] of targets) {
      for (const [label, rawBody, headers] of bodies) {
        const what = `${method} ${url} ${label}`;
        assertError(await h.req(method, url, { key: null, rawBody, headers }), 401, 'UNAUTHORIZED', `no key, ${what}`);
        assertError(await h.req(method, url, { key: 'af_test_garbage', rawBody, headers }), 401, 'UNAUTHORIZED', `bad key, ${what}`);
        const forbidden = await h.req(method, url, { key: readOnly, rawBody, headers });
        assertError(forbidden, 403, 'FORBIDDEN', `read-only key, ${what}`);
        assert.match(forbidden.body.error, /integrations:write/);
      }
    }
    // With the scope: the body is judged before the record is looked up.
    const missing = '/api/v1/integrations/int_doesnotexist';
    assertError(await h.req('PUT', missing, { rawBody: '{', headers: JSON_CT, key: c.org.key }), 400, 'INVALID_JSON', 'malformed on a missing id');
    assertError(await h.req('PUT', missing, { rawBody: '{"name":"x"}', headers: { 'content-type': 'text/plain' }, key: c.org.key }), 415, 'UNSUPPORTED_MEDIA_TYPE', 'text/plain on a missing id');
    assertError(await h.req('PUT', missing, { rawBody: jsonOfSize({ name: 'x' }, MiB + 1), headers: JSON_CT, key: c.org.key }), 413, 'PAYLOAD_TOO_LARGE', 'oversized on a missing id');
    const unknown = await h.req('PUT', missing, { body: { name: 'x', token: 'mine' }, key: c.org.key });
    assertError(unknown, 400, 'VALIDATION_ERROR', 'unknown field on a missing id');
    assert.deepEqual(detailPaths(unknown), ['/token']);
    assertError(await h.req('PUT', missing, { body: { name: 'x' }, key: c.org.key }), 404, 'NOT_FOUND', 'valid body on a missing id');
    assertError(await h.req('POST', '/api/v1/alerts/alt_doesnotexist/acknowledge', { rawBody: '{', headers: JSON_CT, key: c.org.key }), 400, 'INVALID_JSON', 'acknowledge, malformed, missing id');
    assertError(await h.req('POST', '/api/v1/alerts/alt_doesnotexist/acknowledge', { key: c.org.key }), 404, 'NOT_FOUND', 'acknowledge missing id');
    assert.deepEqual(await c.snapshot(), before);
  });
});

/** A raw HTTP exchange on a real socket: what Node's parser refuses never reaches app.inject(). */
function rawExchange(port: number, request: string | Buffer): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body });
    });
    socket.write(request);
  });
}

describe('errors of the HTTP layer come in the envelope too', () => {
  let h: Harness;
  let port: number;
  before(async () => {
    h = await startHarness('sqlite');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as net.AddressInfo).port;
  });
  after(() => h.close());

  const assertEnvelope = (r: { status: number; headers: string; body: string }, status: number, code: string, what: string) => {
    assert.equal(r.status, status, `${what}: ${r.headers}\n${r.body}`);
    assert.match(r.headers, /content-type: application\/json/i, what);
    const body = JSON.parse(r.body);
    assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'error'], what);
    assert.equal(body.code, code, what);
    assert.equal(body.details, null, what);
  };

  it('431 HEADERS_TOO_LARGE for headers or a URL over 16 KiB', async () => {
    assertEnvelope(await rawExchange(port, `GET /api/v1/alerts HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'HEADERS_TOO_LARGE', 'big header');
    assertEnvelope(await rawExchange(port, `GET /api/v1/alerts?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431, 'HEADERS_TOO_LARGE', 'long URL');
  });

  it('400 BAD_REQUEST for malformed HTTP (a non-numeric Content-Length, a bad chunk), INVALID_JSON for a body shorter than its Content-Length', async () => {
    const post = (extra: string, body: string) => `POST /api/inbound/webhook/${'t'.repeat(20)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}\r\n${body}`;
    assertEnvelope(await rawExchange(port, post('Content-Length: abc\r\n', '{}')), 400, 'BAD_REQUEST', 'Content-Length: abc');
    assertEnvelope(await rawExchange(port, post('Transfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n')), 400, 'BAD_REQUEST', 'bad chunk size');
    assertEnvelope(await rawExchange(port, 'GARBAGE\r\n\r\n'), 400, 'BAD_REQUEST', 'not HTTP');
  });

  it('408 REQUEST_TIMEOUT when a request does not arrive in time', () => {
    const written: string[] = [];
    const socket = Object.assign(new PassThrough(), { writable: true });
    socket.write = ((chunk: string) => { written.push(chunk); return true; }) as typeof socket.write;
    clientErrorHandler(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    const [head = '', body = ''] = (written[0] ?? '').split('\r\n\r\n');
    assertEnvelope({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body }, 408, 'REQUEST_TIMEOUT', 'timeout');
    assert.ok(socket.destroyed, 'the connection is closed');
  });

  it('a 1 MiB+ body announced by Content-Length is 413 in the envelope before it is read', async () => {
    const r = await rawExchange(port, `POST /api/v1/integrations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.org.key}\r\nContent-Type: application/json\r\nContent-Length: ${2 * MiB}\r\nConnection: close\r\n\r\n{`);
    assertEnvelope(r, 413, 'PAYLOAD_TOO_LARGE', 'announced 2 MiB');
  });
});
