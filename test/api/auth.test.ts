import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson, asPerson, sessionCookieOf, sessionOf, signIn } from '../support/sessions.ts';
import { STORE_KINDS } from '../support/stores.ts';

const PASSWORD = 'correct horse battery staple';
const HOUR = 3_600_000;

for (const kind of STORE_KINDS) {
  describe(`dashboard sign-in and sessions (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
      await addPerson(h, h.org.id, 'ada@acme.test', PASSWORD, 'admin');
    });
    after(() => h.close());

    const auditActions = async (action: string) =>
      (await h.ok('GET', `/api/v1/audit-log?action=${action}&limit=100`)).data as Array<{ actor: { type: string; id: string | null }; target: { id: string } | null; metadata: Record<string, unknown>; ip: string | null }>;

    it('signs in with a cookie the REST API accepts, and signing out revokes it at once', async () => {
      const r = await h.req('POST', '/api/v1/auth/login', { key: null, body: { email: 'ADA@acme.test ', password: PASSWORD } });
      assert.equal(r.status, 200, r.raw);
      const attrs = sessionCookieOf(r);
      assert.match(attrs, /HttpOnly/i);
      assert.match(attrs, /SameSite=Lax/i);
      assert.match(attrs, /Path=\//);
      assert.doesNotMatch(attrs, /Secure/i, 'BASE_URL is http here');
      assert.equal(r.body.data.user.email, 'ada@acme.test');
      assert.equal(r.body.data.user.role, 'admin');
      assert.equal(r.body.data.organization.id, h.org.id);
      assert.ok(r.body.data.scopes.includes('api_keys:write'));
      const s = sessionOf(r);
      assert.ok(s.cookie.length > 'af_session='.length + 40, 'an id of at least 128 bits');

      assert.equal((await asPerson(h, s, 'GET', '/api/v1/auth/session')).body.data.user.id, s.userId);
      assert.equal((await asPerson(h, s, 'GET', '/api/v1/alerts')).status, 200);
      assert.equal((await asPerson(h, s, 'POST', '/api/v1/auth/logout')).status, 204);
      assert.equal((await asPerson(h, s, 'GET', '/api/v1/auth/session')).status, 401);
      const refused = await asPerson(h, s, 'GET', '/api/v1/alerts');
      assert.equal(refused.status, 401);
      assert.equal(refused.body.code, 'UNAUTHORIZED');
      const out = await auditActions('auth.sign_out');
      assert.ok(out.some((e) => e.actor.type === 'user' && e.actor.id === s.userId));
      const ins = await auditActions('auth.sign_in');
      assert.ok(ins.some((e) => e.actor.id === s.userId && e.ip === '127.0.0.1'));
    });

    it('gives a new session id at every sign-in, and never stores the id itself', async () => {
      const a = await signIn(h, 'ada@acme.test', PASSWORD);
      const b = await signIn(h, 'ada@acme.test', PASSWORD);
      assert.notEqual(a.cookie, b.cookie);
      assert.notEqual(a.csrf, b.csrf);
      const rows = await h.c.store.db.selectFrom('sessions').select('id_hash').execute();
      const id = a.cookie.slice('af_session='.length);
      assert.ok(rows.length >= 2 && rows.every((row) => row.id_hash !== id && /^[0-9a-f]{64}$/.test(row.id_hash)));
    });

    it('refuses a wrong password and an unknown email alike, and audits the failure without the password', async () => {
      const wrong = await h.req('POST', '/api/v1/auth/login', { key: null, body: { email: 'ada@acme.test', password: 'nope' } });
      const unknown = await h.req('POST', '/api/v1/auth/login', { key: null, body: { email: 'nobody@acme.test', password: 'nope' } });
      assert.equal(wrong.status, 401);
      assert.equal(unknown.status, 401);
      assert.deepEqual(wrong.body, unknown.body);
      assert.equal(wrong.headers['set-cookie'], undefined);
      const failed = await auditActions('auth.sign_in_failed');
      assert.ok(failed.some((e) => e.metadata.email === 'ada@acme.test'));
      const raw = JSON.stringify(failed);
      assert.ok(!raw.includes('nope') && !raw.includes('argon2'), 'no password or hash in the audit log');
    });

    it('asks which organization when the credentials match people in several (409), then signs in to the chosen one', async () => {
      const other = await h.newOrg('Globex');
      await addPerson(h, h.org.id, 'sam@both.test', PASSWORD, 'member');
      await addPerson(h, other.id, 'sam@both.test', PASSWORD, 'admin');
      const r = await h.req('POST', '/api/v1/auth/login', { key: null, body: { email: 'sam@both.test', password: PASSWORD } });
      assert.equal(r.status, 409, r.raw);
      assert.equal(r.body.code, 'CONFLICT');
      assert.deepEqual(r.body.details.map((d: { organizationId: string; organizationName: string }) => [d.organizationId, d.organizationName]).sort(),
        [[h.org.id, 'Acme'], [other.id, 'Globex']].sort());
      assert.equal(r.headers['set-cookie'], undefined);
      const s = await signIn(h, 'sam@both.test', PASSWORD, { organizationId: other.id });
      assert.equal(s.orgId, other.id);
      const wrongOrg = await h.req('POST', '/api/v1/auth/login', { key: null, body: { email: 'ada@acme.test', password: PASSWORD, organizationId: other.id } });
      assert.equal(wrongOrg.status, 401);
    });

    it('refuses the session of a removed user at once', async () => {
      const id = await addPerson(h, h.org.id, 'gone@acme.test', PASSWORD);
      const s = await signIn(h, 'gone@acme.test', PASSWORD);
      assert.equal((await asPerson(h, s, 'GET', '/api/v1/alerts')).status, 200);
      await h.c.store.db.deleteFrom('users').where('id', '=', id).execute();
      assert.equal((await asPerson(h, s, 'GET', '/api/v1/alerts')).status, 401);
      assert.equal((await h.c.store.db.selectFrom('sessions').select('id_hash').where('user_id', '=', id).execute()).length, 0);
    });

    it('expires after 12 idle hours (sliding while in use) and 7 days after sign-in whatever the use', async () => {
      const idle = await signIn(h, 'ada@acme.test', PASSWORD);
      const busy = await signIn(h, 'ada@acme.test', PASSWORD);
      const signedInAt = h.clock.now();
      h.clock.advance(11 * HOUR);
      assert.equal((await asPerson(h, busy, 'GET', '/api/v1/alerts')).status, 200);
      h.clock.advance(1 * HOUR + 1);
      assert.equal((await asPerson(h, idle, 'GET', '/api/v1/alerts')).status, 401, 'idle for 12 h');
      const view = (await asPerson(h, busy, 'GET', '/api/v1/auth/session')).body.data;
      assert.equal(Date.parse(view.expiresAt), h.clock.now() + 12 * HOUR, 'use moves the idle expiry');
      while (h.clock.now() + 11 * HOUR < signedInAt + 7 * 24 * HOUR) {
        h.clock.advance(11 * HOUR);
        assert.equal((await asPerson(h, busy, 'GET', '/api/v1/alerts')).status, 200);
      }
      h.clock.t = signedInAt + 7 * 24 * HOUR;
      assert.equal((await asPerson(h, busy, 'GET', '/api/v1/alerts')).status, 401, 'absolute expiry');
    });

    it('needs the CSRF token for cookie-authenticated changes, and records the person as the actor', async () => {
      const integ = await h.integration();
      const alertId = await h.ingestAlert(integ.path, { title: 'disk full', severity: 'high' });
      const s = await signIn(h, 'ada@acme.test', PASSWORD);
      const url = `/api/v1/alerts/${alertId}/acknowledge`;
      for (const csrf of [null, 'wrong', `${s.csrf}x`]) {
        const r = await asPerson(h, s, 'POST', url, { csrf });
        assert.equal(r.status, 403, r.raw);
        assert.equal(r.body.code, 'FORBIDDEN');
      }
      // A cross-site HTML form: the browser sends the cookie, but no token and a form content type.
      const form = await h.req('POST', url, { key: null, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.test' }, rawBody: 'a=1' });
      assert.equal(form.status, 403);
      assert.equal((await h.ok('GET', `/api/v1/alerts/${alertId}`)).data.status, 'firing', 'nothing changed');

      const ok = await asPerson(h, s, 'POST', url);
      assert.equal(ok.status, 200, ok.raw);
      assert.deepEqual(ok.body.data.acknowledgedBy, { type: 'user', id: s.userId });
      // A bearer header wins over the cookie, and needs no CSRF token.
      const key = await h.req('POST', `/api/v1/alerts/${alertId}/resolve`, { headers: { cookie: s.cookie } });
      assert.equal(key.status, 200);
      assert.equal(key.body.data.resolvedBy.type, 'api_key');
    });

    it('gives a member the read scopes plus alerts and incidents writes, and 403 elsewhere', async () => {
      await addPerson(h, h.org.id, 'mo@acme.test', PASSWORD, 'member');
      const s = await signIn(h, 'mo@acme.test', PASSWORD);
      const view = (await asPerson(h, s, 'GET', '/api/v1/auth/session')).body.data;
      assert.ok(view.scopes.includes('api_keys:read') && view.scopes.includes('alerts:write') && view.scopes.includes('incidents:write'));
      assert.ok(!view.scopes.includes('api_keys:write') && !view.scopes.includes('integrations:write'));
      assert.equal((await asPerson(h, s, 'GET', '/api/v1/api-keys')).status, 200);
      const denied = await asPerson(h, s, 'POST', '/api/v1/api-keys', { body: { name: 'mine', scopes: ['alerts:read'] } });
      assert.equal(denied.status, 403);
      assert.match(denied.body.error, /api_keys:write/);
      assert.equal((await asPerson(h, s, 'POST', '/api/v1/integrations', { body: { name: 'x' } })).status, 403);
    });

    it('refuses a sign-in posted from another site (login CSRF)', async () => {
      const r = await h.req('POST', '/api/v1/auth/login', { key: null, headers: { origin: 'https://evil.test' }, body: { email: 'ada@acme.test', password: PASSWORD } });
      assert.equal(r.status, 403);
      assert.equal(r.headers['set-cookie'], undefined);
      const same = await h.req('POST', '/api/v1/auth/login', { key: null, headers: { origin: 'http://alertflow.test' }, body: { email: 'ada@acme.test', password: PASSWORD } });
      assert.equal(same.status, 200);
    });

    it('rejects bad sign-in input with the envelope', async () => {
      const r = await h.req('POST', '/api/v1/auth/login', { key: null, body: { email: 'ada@acme.test' } });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body.details, [{ path: '/password', message: 'is required' }]);
    });
  });

  describe(`failed sign-in limits (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, { RATE_LIMIT_SIGN_IN_FAILURES_PER_ADDRESS: '5', RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT: '3' });
      await addPerson(h, h.org.id, 'ada@acme.test', PASSWORD);
      await addPerson(h, h.org.id, 'bob@acme.test', PASSWORD);
    });
    after(() => h.close());

    const login = (email: string, password: string, ip: string) => h.req('POST', '/api/v1/auth/login', { key: null, ip, body: { email, password } });

    it('locks an account after its failures, from any address, even for the right password', async () => {
      for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) assert.equal((await login('ada@acme.test', 'bad', ip)).status, 401);
      const r = await login('ada@acme.test', PASSWORD, '10.0.0.4');
      assert.equal(r.status, 429);
      assert.equal(r.body.code, 'RATE_LIMITED');
      assert.ok(Number(r.headers['retry-after']) >= 1 && Number(r.headers['retry-after']) <= 900);
      assert.equal((await login('bob@acme.test', PASSWORD, '10.0.0.4')).status, 200, 'other accounts are not locked');
      h.clock.advance(15 * 60_000);
      assert.equal((await login('ada@acme.test', PASSWORD, '10.0.0.4')).status, 200, 'after the window');
    });

    it('locks an address after its failures, whatever the accounts', async () => {
      for (let i = 0; i < 5; i++) assert.equal((await login(`u${i}@acme.test`, 'bad', '10.9.9.9')).status, 401);
      const r = await login('bob@acme.test', PASSWORD, '10.9.9.9');
      assert.equal(r.status, 429);
      assert.ok(Number(r.headers['retry-after']) >= 1);
      assert.equal((await login('bob@acme.test', PASSWORD, '10.9.9.8')).status, 200);
    });
  });
}

describe('sign-in behind https', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { BASE_URL: 'https://alerts.example.test' });
    await addPerson(h, h.org.id, 'ada@acme.test', PASSWORD);
  });
  after(() => h.close());

  it('marks the cookie Secure and accepts only that origin', async () => {
    const body = { email: 'ada@acme.test', password: PASSWORD };
    const r = await h.req('POST', '/api/v1/auth/login', { key: null, headers: { origin: 'https://alerts.example.test' }, body });
    assert.equal(r.status, 200, r.raw);
    assert.match(sessionCookieOf(r), /;\s*Secure/i);
    assert.equal((await h.req('POST', '/api/v1/auth/login', { key: null, headers: { origin: 'http://alerts.example.test' }, body })).status, 403);
  });
});
