import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKey } from '../../src/modules/api-keys/api-keys-fns.ts';
import { startHarness, type Harness, type Org, type Res } from '../support/harness.ts';
import { STORE_KINDS } from '../support/stores.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

/**
 * Moves the (shared, forward-only) test clock to `offsetMs` past the start of the next window of
 * `size`, so a test starts in a window no other test has used.
 */
function enterNextWindow(h: Harness, size: number, offsetMs: number): void {
  const start = (Math.floor(h.clock.now() / size) + 1) * size;
  h.clock.advance(start + offsetMs - h.clock.now());
}

/** Seconds until the current window of `size` ends, as the contract defines Retry-After / X-RateLimit-Reset. */
function secondsLeft(h: Harness, size: number): number {
  const now = h.clock.now();
  return Math.max(1, Math.ceil(((Math.floor(now / size) + 1) * size - now) / SECOND));
}

function assertBudget(r: Res, limit: number, remaining: number, reset: number, what: string): void {
  assert.equal(r.headers['x-ratelimit-limit'], String(limit), `${what}: X-RateLimit-Limit`);
  assert.equal(r.headers['x-ratelimit-remaining'], String(remaining), `${what}: X-RateLimit-Remaining`);
  assert.equal(r.headers['x-ratelimit-reset'], String(reset), `${what}: X-RateLimit-Reset`);
}

function assertRateLimited(r: Res, retryAfter: number, what: string): void {
  assert.equal(r.status, 429, `${what}: ${r.raw.slice(0, 200)}`);
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'details', 'error'], what);
  assert.equal(r.body.code, 'RATE_LIMITED', what);
  assert.equal(r.body.details, null, what);
  assert.match(String(r.headers['retry-after']), /^[1-9]\d*$/, `${what}: Retry-After is whole seconds ≥ 1`);
  assert.equal(r.headers['retry-after'], String(retryAfter), `${what}: Retry-After`);
}

const alertTotal = async (h: Harness, org: Org): Promise<number> =>
  (await h.c.alerts.list(org.id, { limit: 100 })).meta.total as number;

for (const kind of STORE_KINDS) {
  describe(`REST rate limit per organization (${kind})`, () => {
    const LIMIT = 5;
    let h: Harness;
    before(async () => { h = await startHarness(kind, { RATE_LIMIT_API_PER_MINUTE: String(LIMIT) }); });
    after(() => h.close());

    it('counts every authenticated request, whatever its answer, with headers on each; the one over the limit is 429', async () => {
      const org = await h.newOrg();
      enterNextWindow(h, MINUTE, 12_300);
      assert.equal(secondsLeft(h, MINUTE), 48);
      const calls: Array<[string, string, unknown, number]> = [
        ['GET', '/api/v1/alerts', undefined, 200],
        ['GET', '/api/v1/alerts/alt_missing', undefined, 404],
        ['POST', '/api/v1/integrations', { name: 'counted' }, 201],
        ['POST', '/api/v1/integrations', { name: 'x', bogus: true }, 400],
        ['GET', '/api/v1/integrations', undefined, 200],
      ];
      for (const [i, [method, url, body, status]] of calls.entries()) {
        const r = await h.req(method, url, { key: org.key, body });
        assert.equal(r.status, status, `${method} ${url}: ${r.raw}`);
        assertBudget(r, LIMIT, LIMIT - 1 - i, 48, `${method} ${url}`);
      }
      const over = await h.req('GET', '/api/v1/alerts', { key: org.key });
      assertRateLimited(over, 48, 'sixth request');
      assertBudget(over, LIMIT, 0, 48, 'the 429');
      const write = await h.req('POST', '/api/v1/integrations', { key: org.key, body: { name: 'refused' } });
      assertRateLimited(write, 48, 'a write over the limit');

      h.clock.advance(20 * SECOND);
      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: org.key }), 28, 'Retry-After counts down with the window');
      h.clock.advance(27 * SECOND);
      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: org.key }), 1, '0.7 s before the reset');
      h.clock.advance(700);
      const next = await h.req('GET', '/api/v1/integrations', { key: org.key });
      assert.equal(next.status, 200, 'the next window allows again');
      assertBudget(next, LIMIT, LIMIT - 1, 60, 'first request of the next window');
      assert.deepEqual(next.body.data.map((i: { name: string }) => i.name), ['counted'], 'the refused write stored nothing');
    });

    it("is per organization: another organization's budget is separate, and all keys of one organization share theirs", async () => {
      const a = await h.newOrg('A');
      const b = await h.newOrg('B');
      const second = await h.c.apiKeys.create(a.id, { type: 'system', id: null }, { name: 'second', scopes: ['alerts:read'] }, null);
      enterNextWindow(h, MINUTE, 0);
      for (let i = 0; i < LIMIT; i++) assert.equal((await h.req('GET', '/api/v1/alerts', { key: a.key })).status, 200);
      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: a.key }), 60, 'A over its budget');
      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: second.key }), 60, "A's other key shares the budget");
      const rb = await h.req('GET', '/api/v1/alerts', { key: b.key });
      assert.equal(rb.status, 200, 'B is not limited by A');
      assertBudget(rb, LIMIT, LIMIT - 1, 60, 'B');
      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: a.key }), 60, 'A still over after B');
    });

    it('ingest traffic does not use the REST budget', async () => {
      const org = await h.newOrg();
      enterNextWindow(h, MINUTE, 0);
      const integ = await h.integration(org);
      for (let i = 0; i < 2 * LIMIT; i++) assert.equal((await h.ingest(integ.path, { title: `a${i}`, severity: 'low' })).status, 200);
      const r = await h.req('GET', '/api/v1/alerts', { key: org.key });
      assert.equal(r.status, 200);
      assert.equal(r.body.meta.total, 2 * LIMIT);
      assertBudget(r, LIMIT, LIMIT - 2, 60, 'after 1 REST create + 10 ingests');
    });

    it('order: 401 before 429 before 403, 400 and 404', async () => {
      const org = await h.newOrg();
      const readOnly = (await h.c.apiKeys.create(org.id, { type: 'system', id: null }, { name: 'ro', scopes: ['alerts:read'] }, null)).key;
      const integ = await h.integration(org);
      enterNextWindow(h, MINUTE, 30 * SECOND);
      for (let i = 0; i < LIMIT; i++) assert.equal((await h.req('GET', '/api/v1/alerts', { key: org.key })).status, 200);
      const malformed = { rawBody: '{', headers: { 'content-type': 'application/json' } };

      for (const key of [null, 'af_test_garbage', generateKey('test')]) {
        const r = await h.req('POST', '/api/v1/integrations', { key, ...malformed });
        assert.equal(r.status, 401, `key ${key}: authentication comes before the exhausted budget`);
        assert.equal(r.body.code, 'UNAUTHORIZED');
      }
      assertRateLimited(await h.req('POST', '/api/v1/integrations', { key: readOnly, ...malformed }), 30, 'lacking the scope, malformed');
      assertRateLimited(await h.req('POST', '/api/v1/integrations', { key: readOnly, body: { name: 'x' } }), 30, 'lacking the scope');
      assertRateLimited(await h.req('POST', '/api/v1/integrations', { key: org.key, ...malformed }), 30, 'malformed');
      assertRateLimited(await h.req('POST', '/api/v1/integrations', { key: org.key, rawBody: 'x', headers: { 'content-type': 'text/plain' } }), 30, 'text/plain');
      assertRateLimited(await h.req('PUT', '/api/v1/integrations/int_missing', { key: org.key, body: { bogus: 1 } }), 30, 'invalid body, missing id');
      assertRateLimited(await h.req('GET', '/api/v1/alerts/alt_missing', { key: org.key }), 30, 'missing id');
      assertRateLimited(await h.req('GET', '/api/v1/alerts?limit=0', { key: org.key }), 30, 'bad query');
      assertRateLimited(await h.req('DELETE', `/api/v1/integrations/${integ.id}`, { key: org.key }), 30, 'delete');

      h.clock.advance(30 * SECOND);
      const forbidden = await h.req('POST', '/api/v1/integrations', { key: readOnly, ...malformed });
      assert.equal(forbidden.status, 403, 'next window: the scope check answers');
      assertBudget(forbidden, LIMIT, LIMIT - 1, 60, 'a 403 is an authenticated response');
      const invalid = await h.req('POST', '/api/v1/integrations', { key: org.key, ...malformed });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.code, 'INVALID_JSON');
      assertBudget(invalid, LIMIT, LIMIT - 2, 60, 'a 400 is an authenticated response');
      assert.equal((await h.req('GET', '/api/v1/alerts/alt_missing', { key: org.key })).status, 404);
      // The refused delete did nothing.
      assert.equal((await h.req('GET', `/api/v1/integrations/${integ.id}`, { key: org.key })).status, 200);
    });
  });

  describe(`ingest rate limit per integration (${kind})`, () => {
    const LIMIT = 3;
    let h: Harness;
    before(async () => { h = await startHarness(kind, { RATE_LIMIT_INGEST_PER_MINUTE: String(LIMIT) }); });
    after(() => h.close());

    it('headers on every response for a known token; the one over the limit is 429 and stores nothing; the next window allows again', async () => {
      const org = await h.newOrg();
      const a = await h.integration(org);
      const b = await h.integration(org);
      enterNextWindow(h, MINUTE, 30 * SECOND);
      for (let i = 0; i < LIMIT; i++) {
        const r = await h.ingest(a.path, { title: `alert ${i}`, severity: 'high' });
        assert.equal(r.status, 200, r.raw);
        assertBudget(r, LIMIT, LIMIT - 1 - i, 30, `ingest ${i}`);
      }
      const over = await h.ingest(a.path, { title: 'over the limit', severity: 'critical' });
      assertRateLimited(over, 30, 'fourth ingest');
      assertBudget(over, LIMIT, 0, 30, 'the 429');
      assert.equal(await alertTotal(h, org), LIMIT, 'the 429 stored nothing');
      assert.equal((await h.c.alerts.list(org.id, { limit: 10, q: 'over the limit' })).meta.total, 0);

      // Another integration of the same organization has its own budget; its refused requests count and carry headers.
      const bad = await h.req('POST', b.path, { key: null, rawBody: '{', headers: { 'content-type': 'application/json' } });
      assert.equal(bad.status, 400);
      assertBudget(bad, LIMIT, LIMIT - 1, 30, 'a 400 for a known token');
      const plain = await h.req('POST', b.path, { key: null, rawBody: 'x', headers: { 'content-type': 'text/plain' } });
      assert.equal(plain.status, 415);
      assertBudget(plain, LIMIT, LIMIT - 2, 30, 'a 415 for a known token');
      const ok = await h.ingest(b.path, { title: 'via b', severity: 'low' });
      assert.equal(ok.status, 200);
      assertBudget(ok, LIMIT, 0, 30, 'b');
      assertRateLimited(await h.ingest(b.path, { title: 'b over', severity: 'low' }), 30, 'b over');

      h.clock.advance(29_999);
      assertRateLimited(await h.ingest(a.path, { title: 'still over', severity: 'low' }), 1, '1 ms before the reset');
      h.clock.advance(1);
      const again = await h.ingest(a.path, { title: 'next window', severity: 'low' });
      assert.equal(again.status, 200);
      assertBudget(again, LIMIT, LIMIT - 1, 60, 'next window');
      assert.equal(await alertTotal(h, org), LIMIT + 2);
    });

    it('the limit is checked after the token and before content type, size and JSON', async () => {
      const org = await h.newOrg();
      const integ = await h.integration(org);
      enterNextWindow(h, MINUTE, 45 * SECOND);
      for (let i = 0; i < LIMIT; i++) assert.equal((await h.ingest(integ.path, { title: `t${i}`, severity: 'low' })).status, 200);
      const json = { 'content-type': 'application/json' };
      assertRateLimited(await h.req('POST', integ.path, { key: null, rawBody: 'x', headers: { 'content-type': 'text/plain' } }), 15, 'text/plain');
      assertRateLimited(await h.req('POST', integ.path, { key: null, rawBody: '{'.repeat(2 * 1024 * 1024), headers: json }), 15, 'oversized');
      assertRateLimited(await h.req('POST', integ.path, { key: null, rawBody: '{', headers: json }), 15, 'malformed');
      assertRateLimited(await h.ingest(integ.path, {}), 15, 'missing fields');
      // Disabling the integration: its token is now refused (401) before the exhausted budget is looked at.
      assert.equal((await h.req('PATCH', `/api/v1/integrations/${integ.id}`, { key: org.key, body: { enabled: false } })).status, 200);
      const r = await h.ingest(integ.path, { title: 'x', severity: 'low' });
      assert.equal(r.status, 401);
      assert.equal(r.body.code, 'UNAUTHORIZED');
      assert.equal(r.headers['x-ratelimit-limit'], undefined, 'no budget headers for a refused token');
      assert.equal(await alertTotal(h, org), LIMIT);
    });
  });

  describe(`API key creation per organization per UTC day (${kind})`, () => {
    const LIMIT = 2;
    let h: Harness;
    before(async () => { h = await startHarness(kind, { RATE_LIMIT_API_KEYS_PER_DAY: String(LIMIT) }); });
    after(() => h.close());

    const create = (org: Org, body: unknown, key = org.key) => h.req('POST', '/api/v1/api-keys', { key, body });
    const keyTotal = async (org: Org) => (await h.req('GET', '/api/v1/api-keys', { key: org.key })).body.meta.total as number;

    it('only successful creations count; the one over the limit is 429 until UTC midnight and stores nothing', async () => {
      const org = await h.newOrg();
      const narrow = (await h.c.apiKeys.create(org.id, { type: 'system', id: null }, { name: 'narrow', scopes: ['api_keys:write'] }, null)).key;
      const noWrite = (await h.c.apiKeys.create(org.id, { type: 'system', id: null }, { name: 'ro', scopes: ['api_keys:read'] }, null)).key;
      enterNextWindow(h, DAY, 10 * 60 * MINUTE);
      const untilMidnight = 14 * 3600;
      assert.equal(secondsLeft(h, DAY), untilMidnight);
      const keysBefore = await keyTotal(org);

      const failures = async (): Promise<Array<[string, Res, number]>> => [
        ['unknown field', await create(org, { name: 'k', scopes: ['alerts:read'], orgId: 'x' }), 400],
        ['unknown scope', await create(org, { name: 'k', scopes: ['root'] }), 400],
        ['expiry in the past', await create(org, { name: 'k', scopes: ['alerts:read'], expiresAt: '2020-01-01T00:00:00.000Z' }), 400],
        ['malformed', await h.req('POST', '/api/v1/api-keys', { key: org.key, rawBody: '{', headers: { 'content-type': 'application/json' } }), 400],
        ['text/plain', await h.req('POST', '/api/v1/api-keys', { key: org.key, rawBody: 'k', headers: { 'content-type': 'text/plain' } }), 415],
        ['scope the caller lacks', await create(org, { name: 'k', scopes: ['alerts:read'] }, narrow), 403],
        ['key without api_keys:write', await create(org, { name: 'k', scopes: ['api_keys:read'] }, noWrite), 403],
      ];
      // More refused requests than the budget holds, and none of them uses it.
      for (let round = 0; round < 2; round++) {
        for (const [label, r, status] of await failures()) {
          assert.equal(r.status, status, `${label}: ${r.raw}`);
          assert.equal(r.headers['x-ratelimit-limit'], String(LIMIT), `${label}: the header names the daily creation budget`);
        }
      }
      assert.equal(await keyTotal(org), keysBefore);

      for (let i = 0; i < LIMIT; i++) {
        const r = await create(org, { name: `k${i}`, scopes: ['alerts:read'] });
        assert.equal(r.status, 201, `creation ${i} after 14 refused requests: ${r.raw}`);
        assertBudget(r, LIMIT, LIMIT - 1 - i, untilMidnight, `creation ${i}`);
      }
      const over = await create(org, { name: 'over', scopes: ['alerts:read'] });
      assertRateLimited(over, untilMidnight, 'third creation');
      assertBudget(over, LIMIT, 0, untilMidnight, 'the 429');
      assertRateLimited(await create(org, { name: 'k', bogus: 1 }), untilMidnight, 'rate limit comes before validation');
      assertRateLimited(await create(org, { name: 'k', scopes: ['alerts:read'] }, noWrite), untilMidnight, 'rate limit comes before scope');
      assert.equal(await keyTotal(org), keysBefore + LIMIT, 'the 429s stored nothing');

      const other = await h.newOrg('Other');
      assert.equal((await create(other, { name: 'k', scopes: ['alerts:read'] })).status, 201, 'another organization has its own budget');

      // Other REST calls still work: only creation is limited.
      assert.equal((await h.req('GET', '/api/v1/api-keys', { key: org.key })).status, 200);

      h.clock.advance(untilMidnight * SECOND - 500);
      assertRateLimited(await create(org, { name: 'k', scopes: ['alerts:read'] }), 1, '23:59:59.500 UTC');
      h.clock.advance(500);
      assert.equal(new Date(h.clock.now()).toISOString().slice(11), '00:00:00.000Z');
      const next = await create(org, { name: 'after midnight', scopes: ['alerts:read'] });
      assert.equal(next.status, 201, 'a new UTC day allows again');
      assertBudget(next, LIMIT, LIMIT - 1, 86_400, 'first creation of the day');
    });
  });

  describe(`failed authentication per address and per credential (${kind})`, () => {
    const LIMIT = 4;
    const PER_CREDENTIAL = 3;
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, { RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: String(LIMIT), RATE_LIMIT_AUTH_FAILURES_PER_CREDENTIAL_PER_MINUTE: String(PER_CREDENTIAL) });
    });
    after(() => h.close());

    const bearer = (value: string) => ({ key: null, headers: { authorization: value } });

    it('after N failures an address gets 429 for further failures, while valid keys and tokens from it still work', async () => {
      const org = await h.newOrg();
      const integ = await h.integration(org);
      enterNextWindow(h, MINUTE, 45 * SECOND);
      const ip = '10.0.0.9';
      const failures = [
        await h.req('GET', '/api/v1/alerts', { key: null, ip }),
        await h.req('GET', '/api/v1/alerts', { ...bearer('Bearer not-a-key'), ip }),
        await h.req('GET', '/api/v1/alerts', { key: generateKey('test'), ip }),
        await h.req('GET', '/api/v1/alerts', { ...bearer(`Basic ${Buffer.from('a:b').toString('base64')}`), ip }),
      ];
      for (const r of failures) assert.equal(r.status, 401, r.raw);

      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: 'bad', ip }), 15, 'bad key from the address over the limit');
      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: null, ip }), 15, 'no key from the address over the limit');
      assertRateLimited(await h.ingest('/api/inbound/webhook/not-a-token', { title: 'x', severity: 'low' }, { ip }), 15, 'bad token from the address over the limit');

      const valid = await h.req('GET', '/api/v1/alerts', { key: org.key, ip });
      assert.equal(valid.status, 200, 'a valid key from that address is accepted');
      assert.equal((await h.req('POST', '/api/v1/integrations', { key: org.key, body: { name: 'allowed' }, ip })).status, 201);
      assert.equal((await h.ingest(integ.path, { title: 'still paged', severity: 'critical' }, { ip })).status, 200, 'a valid ingest token from that address is accepted');
      assert.equal(await alertTotal(h, org), 1);

      assert.equal((await h.req('GET', '/api/v1/alerts', { key: 'bad', ip: '10.0.0.10' })).status, 401, 'another address still gets 401');
      h.clock.advance(15 * SECOND);
      assert.equal((await h.req('GET', '/api/v1/alerts', { key: 'bad', ip })).status, 401, 'the next window counts afresh');
    });

    it('behind a proxy without TRUST_PROXY (every sender one address), a flood of bad tokens does not stop good senders', async () => {
      const org = await h.newOrg();
      const integ = await h.integration(org);
      enterNextWindow(h, MINUTE, 0);
      const proxy = '10.0.0.20';
      for (let i = 0; i < 25 * LIMIT; i++) await h.ingest(`/api/inbound/webhook/guess-${i}`, { title: 'x', severity: 'low' }, { ip: proxy });
      for (let i = 0; i < 5; i++) {
        assert.equal((await h.ingest(integ.path, { title: `page ${i}`, severity: 'critical' }, { ip: proxy })).status, 200);
        assert.equal((await h.req('GET', '/api/v1/alerts', { key: org.key, ip: proxy })).status, 200);
      }
      assert.equal(await alertTotal(h, org), 5);
    });

    it('ingest with bad or disabled tokens counts together with REST failures', async () => {
      const org = await h.newOrg();
      const integ = await h.integration(org);
      const disabled = await h.integration(org, { name: 'off', enabled: false });
      enterNextWindow(h, MINUTE, 0);
      const ip = '10.0.0.11';
      assert.equal((await h.ingest('/api/inbound/webhook/not-a-token', { title: 'x', severity: 'low' }, { ip })).status, 401);
      assert.equal((await h.ingest(disabled.path, { title: 'x', severity: 'low' }, { ip })).status, 401);
      assert.equal((await h.req('POST', '/api/inbound/webhook/nope', { key: null, ip, rawBody: 'x', headers: { 'content-type': 'text/plain' } })).status, 401);
      assert.equal((await h.req('GET', '/api/v1/alerts', { key: null, ip })).status, 401);
      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: 'bad', ip }), 60, 'a REST failure after three ingest failures');
      assert.equal((await h.ingest(integ.path, { title: 'fine', severity: 'low' }, { ip })).status, 200);
    });

    it('failures aimed at one key (its visible prefix) are limited from any address; valid keys keep working', async () => {
      const org = await h.newOrg();
      const made = await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'target', scopes: ['alerts:read'] } });
      const target = made.body.data;
      assert.equal((await h.req('DELETE', `/api/v1/api-keys/${target.id}`, { key: org.key })).status, 204);
      enterNextWindow(h, MINUTE, 30 * SECOND);
      // The revoked key from ever new addresses: each address is far below its own limit.
      for (let i = 0; i < PER_CREDENTIAL; i++) assert.equal((await h.req('GET', '/api/v1/alerts', { key: target.key, ip: `10.1.0.${i}` })).status, 401);
      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: target.key, ip: '10.1.0.99' }), 30, 'the same revoked key from a fresh address');
      assert.equal((await h.req('GET', '/api/v1/alerts', { key: generateKey('test'), ip: '10.1.0.98' })).status, 401, 'another key is another credential');
      assert.equal((await h.req('GET', '/api/v1/alerts', { key: org.key, ip: '10.1.0.97' })).status, 200, 'valid keys are unaffected');

      // A disabled integration's sender is told 401 (stop), not 429 (retry), however often it posts.
      const disabled = await h.integration(org, { name: 'off', enabled: false });
      for (let i = 0; i < 3 * PER_CREDENTIAL; i++) assert.equal((await h.ingest(disabled.path, { title: 'x', severity: 'low' }, { ip: `10.2.0.${i}` })).status, 401);
    });

    it('successful requests, 403s, 400s and 404s are not failures and do not reset the count', async () => {
      const org = await h.newOrg();
      const readOnly = (await h.c.apiKeys.create(org.id, { type: 'system', id: null }, { name: 'ro', scopes: ['alerts:read'] }, null)).key;
      const integ = await h.integration(org);
      enterNextWindow(h, MINUTE, 0);
      const ip = '10.0.0.12';
      for (let i = 0; i < LIMIT - 1; i++) assert.equal((await h.req('GET', '/api/v1/alerts', { key: null, ip })).status, 401);
      for (let i = 0; i < 2 * LIMIT; i++) {
        assert.equal((await h.req('GET', '/api/v1/alerts', { key: org.key, ip })).status, 200);
        assert.equal((await h.req('GET', '/api/v1/integrations', { key: readOnly, ip })).status, 403);
        assert.equal((await h.req('GET', '/api/v1/alerts?limit=0', { key: org.key, ip })).status, 400);
        assert.equal((await h.req('GET', '/api/v1/alerts/alt_missing', { key: org.key, ip })).status, 404);
        assert.equal((await h.ingest(integ.path, { title: `ok ${i}`, severity: 'low' }, { ip })).status, 200);
        assert.equal((await h.ingest(integ.path, {}, { ip })).status, 400);
      }
      assert.equal((await h.req('GET', '/api/v1/alerts', { key: null, ip })).status, 401, `failure ${LIMIT}`);
      assertRateLimited(await h.req('GET', '/api/v1/alerts', { key: null, ip }), 60, `after ${LIMIT} failures`);
    });
  });
}
