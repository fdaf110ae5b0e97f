import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createContainer } from '../../src/container.ts';
import { buildApp } from '../../src/http/app.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const minuteOf = (ms: number): string => iso(Math.floor(ms / 60_000) * 60_000);

eachStore('API keys', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  async function create(org: Org, body: unknown, key = org.key) {
    return h.req('POST', '/api/v1/api-keys', { key, body });
  }
  async function createOk(org: Org, body: Record<string, unknown>, key = org.key): Promise<{ id: string; key: string; prefix: string }> {
    const r = await create(org, body, key);
    assert.equal(r.status, 201, r.raw);
    return r.body.data;
  }
  async function keyIdOf(org: Org): Promise<string> {
    const r = await h.req('GET', '/api/v1/api-keys', { key: org.key });
    assert.equal(r.body.data.length, 1, 'a fresh organization has exactly its owner key');
    return r.body.data[0].id;
  }
  const listKeys = async (org: Org) => {
    const r = await h.req('GET', '/api/v1/api-keys?limit=100', { key: org.key });
    assert.equal(r.status, 200, r.raw);
    return r;
  };

  it('POST /api-keys: 201 with id, name, scopes, expiresAt, prefix, createdAt, lastUsedAt null and the full af_test_ key', async () => {
    const org = await h.newOrg();
    const r = await create(org, { name: 'CI reader', scopes: ['alerts:read', 'incidents:read'] });
    assert.equal(r.status, 201);
    const d = r.body.data;
    assert.deepEqual(Object.keys(d).sort(), ['createdAt', 'expiresAt', 'id', 'key', 'lastUsedAt', 'name', 'prefix', 'scopes']);
    assert.equal(d.name, 'CI reader');
    assert.deepEqual(d.scopes, ['alerts:read', 'incidents:read']);
    assert.equal(d.expiresAt, null);
    assert.equal(d.lastUsedAt, null);
    assert.equal(d.createdAt, iso(h.clock.now()));
    assert.match(d.key, /^af_test_[0-9A-Za-z]{32,}$/);
    assert.ok(d.key.startsWith(d.prefix), 'the prefix is the start of the key');
    assert.ok(d.prefix.startsWith('af_test_'));
    assert.ok(d.prefix.length <= d.key.length - 27, 'the prefix leaves at least 160 bits of the secret unshown');
    const again = await createOk(org, { name: 'CI reader', scopes: ['alerts:read'] });
    assert.notEqual(again.key, d.key);
    assert.notEqual(again.id, d.id);
  });

  it('a new key works for its scopes and is 403 naming the scope for any other', async () => {
    const org = await h.newOrg();
    const k = await createOk(org, { name: 'reader', scopes: ['alerts:read', 'integrations:read'] });
    assert.equal((await h.req('GET', '/api/v1/alerts', { key: k.key })).status, 200);
    assert.equal((await h.req('GET', '/api/v1/integrations', { key: k.key })).status, 200);
    const denied: Array<[string, string, string, unknown?]> = [
      ['POST', '/api/v1/integrations', 'integrations:write', { name: 'x' }],
      ['POST', '/api/v1/alerts/bulk', 'alerts:write', { action: 'resolve', ids: ['x'] }],
      ['GET', '/api/v1/api-keys', 'api_keys:read'],
      ['POST', '/api/v1/api-keys', 'api_keys:write', { name: 'x', scopes: ['alerts:read'] }],
      ['GET', '/api/v1/users', 'users:read'],
      ['GET', '/api/v1/audit-log', 'audit:read'],
    ];
    for (const [method, url, scope, body] of denied) {
      const r = await h.req(method, url, { key: k.key, ...(body !== undefined && { body }) });
      assert.equal(r.status, 403, `${method} ${url}`);
      assert.equal(r.body.code, 'FORBIDDEN');
      assert.ok(r.body.error.includes(scope), `${method} ${url}: "${r.body.error}" names ${scope}`);
    }
    assert.equal((await listKeys(org)).body.meta.total, 2, 'the denied create made no key');
    assert.equal((await h.req('GET', '/api/v1/integrations', { key: org.key })).body.meta.total, 0, 'the denied create made no integration');
  });

  it('a key cannot create a key with a scope it does not hold (403)', async () => {
    const org = await h.newOrg();
    const k = await createOk(org, { name: 'delegate', scopes: ['api_keys:write', 'alerts:read'] });
    const sub = await create(org, { name: 'sub', scopes: ['alerts:read'] }, k.key);
    assert.equal(sub.status, 201, 'a subset of its own scopes is fine');
    for (const scopes of [['alerts:write'], ['alerts:read', 'integrations:read'], ['audit:read']]) {
      const r = await create(org, { name: 'escalate', scopes }, k.key);
      assert.equal(r.status, 403, scopes.join(','));
      assert.equal(r.body.code, 'FORBIDDEN');
      assert.ok(r.body.error.includes(scopes.at(-1) as string), r.body.error);
    }
    assert.equal((await listKeys(org)).body.meta.total, 3, 'owner, delegate and sub; nothing else');
  });

  it('rejects duplicate, unknown or empty scopes, a missing name, unknown fields and a past expiry with 400', async () => {
    const org = await h.newOrg();
    const past = iso(h.clock.now() - 1000);
    const bodies: Array<[unknown, string]> = [
      [{ name: 'dup', scopes: ['alerts:read', 'alerts:read'] }, '/scopes'],
      [{ name: 'unknown', scopes: ['alerts:delete'] }, '/scopes/0'],
      [{ name: 'unknown', scopes: ['alerts:read', 'admin'] }, '/scopes/1'],
      [{ name: 'empty', scopes: [] }, '/scopes'],
      [{ name: 'none' }, '/scopes'],
      [{ scopes: ['alerts:read'] }, '/name'],
      [{ name: '', scopes: ['alerts:read'] }, '/name'],
      [{ name: 'past', scopes: ['alerts:read'], expiresAt: past }, '/expiresAt'],
      [{ name: 'bad date', scopes: ['alerts:read'], expiresAt: 'next tuesday' }, '/expiresAt'],
      [{ name: 'extra', scopes: ['alerts:read'], key: 'af_test_chosen' }, '/key'],
      [{ name: 'extra', scopes: ['alerts:read'], orgId: 'org_other' }, '/orgId'],
    ];
    for (const [body, path] of bodies) {
      const r = await create(org, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.ok(r.body.details.some((d: { path: string }) => d.path.startsWith(path)), `${JSON.stringify(body)}: ${JSON.stringify(r.body.details)}`);
    }
    assert.equal((await listKeys(org)).body.meta.total, 1, 'no key was created');
  });

  it('a key with expiresAt works until then and is 401 after', async () => {
    const org = await h.newOrg();
    const expiresAt = h.clock.now() + 3_600_000;
    // Given without milliseconds; answered in the canonical form.
    const r = await create(org, { name: 'temp', scopes: ['alerts:read'], expiresAt: iso(expiresAt).replace('.000Z', 'Z') });
    assert.equal(r.status, 201);
    assert.equal(r.body.data.expiresAt, iso(expiresAt));
    const temp = r.body.data.key as string;
    assert.equal((await h.req('GET', '/api/v1/alerts', { key: temp })).status, 200);
    h.clock.advance(3_600_000 - 1);
    assert.equal((await h.req('GET', '/api/v1/alerts', { key: temp })).status, 200, 'one millisecond before expiry');
    h.clock.advance(1001);
    const expired = await h.req('GET', '/api/v1/alerts', { key: temp });
    assert.equal(expired.status, 401);
    assert.equal(expired.body.code, 'UNAUTHORIZED');
    assert.equal((await h.req('GET', '/api/v1/alerts', { key: org.key })).status, 200, 'other keys are unaffected');
  });

  it('GET /api-keys never returns a key value or its hash, and does not list revoked keys', async () => {
    const org = await h.newOrg();
    const a = await createOk(org, { name: 'a', scopes: ['alerts:read'] });
    const b = await createOk(org, { name: 'b', scopes: ['alerts:read'], expiresAt: iso(h.clock.now() + 86_400_000) });
    const r = await listKeys(org);
    assert.equal(r.body.meta.total, 3);
    assert.deepEqual(new Set(r.body.data.map((k: { id: string }) => k.id)), new Set([await idOfOwner(org, [a.id, b.id]), a.id, b.id]));
    for (const k of r.body.data) {
      assert.deepEqual(Object.keys(k).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes']);
    }
    for (const secret of [org.key, a.key, b.key]) {
      const rest = secret.slice(12);
      assert.ok(!r.raw.includes(rest), 'no part of a key beyond its visible prefix');
      assert.ok(!r.raw.includes(createHash('sha256').update(secret).digest('hex')), 'no hash of a key');
    }
    assert.equal((await h.req('DELETE', `/api/v1/api-keys/${a.id}`, { key: org.key })).status, 204);
    const after = await listKeys(org);
    assert.equal(after.body.meta.total, 2);
    assert.ok(!after.body.data.some((k: { id: string }) => k.id === a.id), 'the revoked key is not listed');
  });

  /** The owner key's id: the listed key that is none of `others`. */
  async function idOfOwner(org: Org, others: string[]): Promise<string> {
    const r = await listKeys(org);
    const ids = r.body.data.map((k: { id: string }) => k.id).filter((id: string) => !others.includes(id));
    assert.equal(ids.length, 1);
    return ids[0];
  }

  it('DELETE /api-keys/{id}: 204, then the key is 401 on the very next request; again, unknown or foreign → 404', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    const k = await createOk(org, { name: 'doomed', scopes: ['alerts:read'] });
    assert.equal((await h.req('GET', '/api/v1/alerts', { key: k.key })).status, 200);
    const del = await h.req('DELETE', `/api/v1/api-keys/${k.id}`, { key: org.key });
    assert.equal(del.status, 204);
    assert.equal(del.raw, '');
    const next = await h.req('GET', '/api/v1/alerts', { key: k.key });
    assert.equal(next.status, 401);
    assert.equal(next.body.code, 'UNAUTHORIZED');
    const again = await h.req('DELETE', `/api/v1/api-keys/${k.id}`, { key: org.key });
    assert.equal(again.status, 404);
    assert.equal(again.body.code, 'NOT_FOUND');
    const random = await h.req('DELETE', '/api/v1/api-keys/key_doesnotexist', { key: org.key });
    assert.equal(random.status, 404);
    const otherKey = await createOk(other, { name: 'theirs', scopes: ['alerts:read'] });
    const foreign = await h.req('DELETE', `/api/v1/api-keys/${otherKey.id}`, { key: org.key });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, random.body, 'another organization\'s key looks like a missing one');
    assert.equal((await h.req('GET', '/api/v1/alerts', { key: otherKey.key })).status, 200, 'and it keeps working');
  });

  it('a key can revoke itself, and is 401 right after', async () => {
    const org = await h.newOrg();
    const k = await createOk(org, { name: 'self', scopes: ['api_keys:write', 'alerts:read'] });
    assert.equal((await h.req('DELETE', `/api/v1/api-keys/${k.id}`, { key: k.key })).status, 204);
    assert.equal((await h.req('GET', '/api/v1/alerts', { key: k.key })).status, 401);
  });

  describe('revocation rules', () => {
    const ALL = async (org: Org) => (await h.req('GET', '/api/v1/api-keys', { key: org.key })).body.data[0].scopes as string[];
    const works = async (key: string) => (await h.req('GET', '/api/v1/api-keys', { key })).status !== 401;

    it('a key can revoke only keys whose scopes it holds itself: 403 naming the missing scopes otherwise', async () => {
      const org = await h.newOrg();
      const ownerId = await keyIdOf(org);
      const narrow = await createOk(org, { name: 'narrow', scopes: ['api_keys:write', 'api_keys:read', 'alerts:read'] });
      const wider = await createOk(org, { name: 'wider', scopes: ['alerts:read', 'incidents:write'] });
      const same = await createOk(org, { name: 'same', scopes: ['alerts:read'] });
      for (const id of [ownerId, wider.id]) {
        const r = await h.req('DELETE', `/api/v1/api-keys/${id}`, { key: narrow.key });
        assert.equal(r.status, 403, r.raw);
        assert.equal(r.body.code, 'FORBIDDEN');
        assert.match(r.body.error, /incidents:write/);
      }
      assert.ok(await works(org.key), 'the owner key still works');
      assert.equal((await h.req('GET', '/api/v1/alerts', { key: wider.key })).status, 200, 'the wider key still works');
      assert.equal((await h.req('DELETE', `/api/v1/api-keys/${same.id}`, { key: narrow.key })).status, 204, 'a subset of its scopes: allowed');
    });

    it('the last usable key holding api_keys:write cannot be revoked by a key: 409 CONFLICT pointing to the dashboard or CLI', async () => {
      const org = await h.newOrg();
      const ownerId = await keyIdOf(org);
      const r = await h.req('DELETE', `/api/v1/api-keys/${ownerId}`, { key: org.key });
      assert.equal(r.status, 409, r.raw);
      assert.equal(r.body.code, 'CONFLICT');
      assert.match(r.body.error, /dashboard/);
      assert.match(r.body.error, /CLI/);
      assert.ok(await works(org.key));
      // An expired key holding the scope is no way back in: it does not count.
      await createOk(org, { name: 'expiring', scopes: await ALL(org), expiresAt: iso(h.clock.now() + 60_000) });
      h.clock.advance(60_000);
      assert.equal((await h.req('DELETE', `/api/v1/api-keys/${ownerId}`, { key: org.key })).status, 409);
      // With a second usable admin key, either may go, but then the other is the last.
      const second = await createOk(org, { name: 'second', scopes: await ALL(org) });
      assert.equal((await h.req('DELETE', `/api/v1/api-keys/${ownerId}`, { key: second.key })).status, 204);
      assert.equal((await h.req('DELETE', `/api/v1/api-keys/${second.id}`, { key: second.key })).status, 409);
      assert.ok(await works(second.key));
      // The CLI (a trusted caller) may still revoke it.
      await h.c.apiKeys.revoke(org.id, { type: 'system', id: null }, second.id, null);
      assert.ok(!(await works(second.key)));
    });

    it('two keys revoking each other at once: exactly one succeeds, one admin key is left', async () => {
      for (let round = 0; round < 5; round++) {
        const org = await h.newOrg();
        const a = { id: await keyIdOf(org), key: org.key };
        const b = await createOk(org, { name: 'b', scopes: await ALL(org) });
        const all = new Set(await ALL(org));
        const results = await Promise.allSettled([
          h.c.apiKeys.revoke(org.id, { type: 'api_key', id: a.id }, b.id, all),
          h.c.apiKeys.revoke(org.id, { type: 'api_key', id: b.id }, a.id, all),
        ]);
        assert.equal(results.filter((x) => x.status === 'fulfilled').length, 1, `round ${round}`);
        const refused = results.find((x) => x.status === 'rejected') as PromiseRejectedResult;
        assert.equal(refused.reason.code, 'CONFLICT');
        assert.equal([await works(a.key), await works(b.key)].filter(Boolean).length, 1, 'one admin key is left');
      }
    });
  });

  it('only a hash is stored: no column of the key\'s row, nor any audit event, holds the key', async () => {
    const org = await h.newOrg();
    const k = await createOk(org, { name: 'stored', scopes: ['alerts:read'] });
    const secretPart = k.key.slice('af_test_'.length);
    const row = await h.c.store.db.selectFrom('api_keys').selectAll().where('id', '=', k.id).executeTakeFirstOrThrow();
    for (const [column, value] of Object.entries(row)) {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      assert.ok(!text.includes(k.key), `column ${column} holds the key`);
      assert.ok(!text.includes(secretPart), `column ${column} holds the secret part`);
    }
    assert.notEqual(row.key_hash, k.key);
    assert.ok(row.key_hash.length >= 32);
    assert.ok(k.key.startsWith(row.prefix));
    const events = await h.c.store.db.selectFrom('audit_events').selectAll().where('org_id', '=', org.id).execute();
    assert.ok(events.length > 0);
    assert.ok(!JSON.stringify(events).includes(secretPart), 'no audit event holds the key');
  });

  describe('audit', () => {
    it('every authenticated request is an api_key.used event with key id, method, path, status and address', async () => {
      const org = await h.newOrg();
      const other = await h.newOrg();
      const k = await createOk(org, { name: 'audited', scopes: ['alerts:read'] });
      const minutes: string[] = [];
      await h.req('GET', '/api/v1/alerts?status=firing', { key: k.key, ip: '203.0.113.7' });
      minutes.push(minuteOf(h.clock.now()));
      h.clock.advance(1000);
      await h.req('GET', '/api/v1/integrations', { key: k.key, ip: '198.51.100.2' });
      minutes.push(minuteOf(h.clock.now()));
      h.clock.advance(1000);
      await h.req('GET', '/api/v1/alerts/alt_missing', { key: k.key, ip: '203.0.113.7' });
      minutes.push(minuteOf(h.clock.now()));
      await h.c.audit.flush();
      const r = await h.req('GET', '/api/v1/audit-log?action=api_key.used&limit=100', { key: org.key });
      assert.equal(r.status, 200);
      assert.ok(r.body.data.every((e: { action: string }) => e.action === 'api_key.used'));
      const mine = r.body.data.filter((e: { metadata: { keyId?: string } }) => e.metadata.keyId === k.id);
      assert.deepEqual(mine.map((e: any) => ({ ...e.metadata, ip: e.ip, actor: e.actor })), [
        { keyId: k.id, method: 'GET', path: '/api/v1/alerts/alt_missing', status: 404, minute: minutes[2], uses: 1, ip: '203.0.113.7', actor: { type: 'api_key', id: k.id } },
        { keyId: k.id, method: 'GET', path: '/api/v1/integrations', status: 403, minute: minutes[1], uses: 1, ip: '198.51.100.2', actor: { type: 'api_key', id: k.id } },
        { keyId: k.id, method: 'GET', path: '/api/v1/alerts', status: 200, minute: minutes[0], uses: 1, ip: '203.0.113.7', actor: { type: 'api_key', id: k.id } },
      ]);
      const theirs = await h.req('GET', '/api/v1/audit-log?action=api_key.used&limit=100', { key: other.key });
      assert.ok(!theirs.raw.includes(k.id), 'another organization does not see these events');
    });

    it('uses are counted per minute: one api_key.used event per key, minute, method, path, status and address, added to across flushes and instances', async () => {
      const org = await h.newOrg();
      const k = await createOk(org, { name: 'counted', scopes: ['alerts:read'] });
      h.clock.advance(60_000 - (h.clock.now() % 60_000));
      const firstMinute = minuteOf(h.clock.now());
      for (let i = 0; i < 3; i++) assert.equal((await h.req('GET', `/api/v1/alerts?limit=${i + 1}`, { key: k.key, ip: '203.0.113.7' })).status, 200);
      await h.c.audit.flush();
      h.clock.advance(20_000);
      // Another instance sharing the store counts the same minute into the same event.
      const other = await createContainer(h.config, { log: pino({ level: 'silent' }), clock: h.clock });
      const otherApp = await buildApp(other, pino({ level: 'silent' }));
      try {
        for (let i = 0; i < 2; i++) {
          const r = await otherApp.inject({ method: 'GET', url: '/api/v1/alerts', headers: { authorization: `Bearer ${k.key}` }, remoteAddress: '203.0.113.7' });
          assert.equal(r.statusCode, 200, r.body);
        }
      } finally {
        await otherApp.close();
        await other.close(); // flushes its counts on the way out, as on shutdown
      }
      assert.equal((await h.req('GET', '/api/v1/alerts', { key: k.key, ip: '203.0.113.8' })).status, 200);
      h.clock.advance(40_000);
      assert.equal((await h.req('GET', '/api/v1/alerts', { key: k.key, ip: '203.0.113.7' })).status, 200);
      await h.c.audit.flush();
      const r = await h.req('GET', `/api/v1/audit-log?action=api_key.used&actorId=${k.id}&limit=100`, { key: org.key });
      assert.equal(r.status, 200, r.raw);
      assert.deepEqual(r.body.data.map((e: any) => ({ minute: e.metadata.minute, ip: e.ip, uses: e.metadata.uses })), [
        { minute: minuteOf(h.clock.now()), ip: '203.0.113.7', uses: 1 },
        { minute: firstMinute, ip: '203.0.113.8', uses: 1 },
        { minute: firstMinute, ip: '203.0.113.7', uses: 5 },
      ]);
      const rows = await h.c.store.db.selectFrom('audit_events').select('id').where('actor_id', '=', k.id).where('action', '=', 'api_key.used').execute();
      assert.equal(rows.length, 3, 'one row per counter, not one per request');
    });

    it('api_key.created and api_key.revoked are recorded with actor and target', async () => {
      const org = await h.newOrg();
      const ownerKeyId = await keyIdOf(org);
      const k = await createOk(org, { name: 'lifecycle', scopes: ['alerts:read'] });
      await h.req('DELETE', `/api/v1/api-keys/${k.id}`, { key: org.key });
      for (const action of ['api_key.created', 'api_key.revoked']) {
        const r = await h.req('GET', `/api/v1/audit-log?action=${action}`, { key: org.key });
        assert.equal(r.status, 200);
        const e = r.body.data.find((x: { target: { id: string } | null }) => x.target?.id === k.id);
        assert.ok(e, `${action} for the key`);
        assert.equal(e.action, action);
        assert.deepEqual(e.target, { type: 'api_key', id: k.id });
        assert.deepEqual(e.actor, { type: 'api_key', id: ownerKeyId });
      }
    });

    it('lastUsedAt is set once the use is flushed', async () => {
      const org = await h.newOrg();
      const k = await createOk(org, { name: 'used', scopes: ['alerts:read'] });
      h.clock.advance(5000);
      const usedAt = h.clock.now();
      await h.req('GET', '/api/v1/alerts', { key: k.key });
      h.clock.advance(5000);
      await h.c.audit.flush();
      const listed = (await listKeys(org)).body.data.find((x: { id: string }) => x.id === k.id);
      assert.equal(listed.lastUsedAt, iso(usedAt));
      const unused = await createOk(org, { name: 'never used', scopes: ['alerts:read'] });
      await h.c.audit.flush();
      assert.equal((await listKeys(org)).body.data.find((x: { id: string }) => x.id === unused.id).lastUsedAt, null);
    });
  });

  it('GET /users lists the owner without any password or hash field', async () => {
    const made = await h.c.orgs.create({ name: 'With password', ownerEmail: 'Owner@Example.test', ownerPassword: 'correct horse battery staple' });
    const stored = await h.c.store.db.selectFrom('users').selectAll().where('id', '=', made.owner.id).executeTakeFirstOrThrow();
    assert.ok(stored.password_hash, 'the owner has a password hash to leak');
    const r = await h.req('GET', '/api/v1/users', { key: made.apiKey });
    assert.equal(r.status, 200);
    assert.equal(r.body.meta.total, 1);
    const [u] = r.body.data;
    assert.equal(u.id, made.owner.id);
    assert.equal(u.email, 'owner@example.test');
    assert.equal(u.role, 'owner');
    for (const field of Object.keys(u)) assert.doesNotMatch(field, /pass|hash|secret|salt/i);
    assert.ok(!r.raw.includes(stored.password_hash as string));
    assert.doesNotMatch(r.raw, /\$argon2|correct horse/);
    const ro = await createOk({ id: made.org.id, ownerId: made.owner.id, key: made.apiKey }, { name: 'no users', scopes: ['alerts:read'] });
    const denied = await h.req('GET', '/api/v1/users', { key: ro.key });
    assert.equal(denied.status, 403);
    assert.match(denied.body.error, /users:read/);
  });
});
