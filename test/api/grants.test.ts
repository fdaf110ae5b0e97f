import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../../src/modules/api-keys/api-keys-fns.ts';
import { scopesOfRole } from '../../src/modules/auth/auth-fns.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson, asPerson, sessionOf, signIn } from '../support/sessions.ts';
import { eachStore } from '../support/stores.ts';

/** A caller hands on only what it holds (issue 25 rows 3 and 10): through keys, and through members. */
const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;

eachStore('what a caller may grant', { together: true }, (kind) => {
  let h: Harness;
  let adminId: string;
  before(async () => {
    h = await startHarness(kind);
    adminId = await addPerson(h, h.org.id, 'adam@acme.test', PASSWORD, 'admin');
  });
  after(() => h.close());

  const key = async (scopes: readonly string[], expiresAt?: string): Promise<string> =>
    (await h.ok('POST', '/api/v1/api-keys', { body: { name: 'k', scopes, ...(expiresAt && { expiresAt }) } }, 201)).data.key;
  const members = async () => (await h.ok('GET', '/api/v1/users?limit=100')).data as Array<{ email: string; role: string }>;

  it('a key holding users:write alone gets no further: no admin, no member, no link for an admin (403, nothing stored)', async () => {
    const weak = await key(['users:write']);
    const admin = await signIn(h, 'adam@acme.test', PASSWORD);
    for (const role of ['admin', 'member', 'owner']) {
      const r = await h.req('POST', '/api/v1/users', { key: weak, body: { email: `${role}@evil.test`, name: 'x', role } });
      assert.equal(r.status, 403, r.raw);
      assert.equal(r.body.code, 'FORBIDDEN');
    }
    assert.ok(!(await members()).some((m) => m.email.endsWith('@evil.test')), 'nobody added');
    const link = await h.req('POST', `/api/v1/users/${adminId}/password-link`, { key: weak });
    assert.equal(link.status, 403, link.raw);
    assert.match(link.body.error, /needs scopes the caller does not hold: .*api_keys:write/);
    assert.equal((await h.req('PATCH', `/api/v1/users/${adminId}`, { key: weak, body: { role: 'member' } })).status, 403, 'no demoting an admin either');
    assert.equal((await h.req('DELETE', `/api/v1/users/${adminId}`, { key: weak })).status, 403);
    assert.equal((await asPerson(h, admin, 'GET', '/api/v1/auth/session')).status, 200, 'the admin\'s session goes on');
    assert.equal((await h.ok('GET', '/api/v1/audit-log?action=user.password_link_issued')).data.length, 0);
  });

  it('end to end: a key with a member\'s scopes adds a member, whose session holds a member\'s scopes only and mints no admin key', async () => {
    const manager = await key(['users:write', ...scopesOfRole('member')]);
    assert.equal((await h.req('POST', '/api/v1/users', { key: manager, body: { email: 'boss@evil.test', name: 'x', role: 'admin' } })).status, 403);
    const added = await h.ok('POST', '/api/v1/users', { key: manager, body: { email: 'nora@acme.test', name: 'Nora', role: 'member' } }, 201);
    assert.equal((await h.req('PATCH', `/api/v1/users/${added.data.id}`, { key: manager, body: { role: 'admin' } })).status, 403, 'no promoting beyond itself');
    const token = new URL(added.data.setPasswordLink.url).searchParams.get('token');
    const r = await h.req('POST', '/api/v1/auth/set-password', { key: null, body: { token, password: PASSWORD } });
    assert.equal(r.status, 200, r.raw);
    assert.deepEqual([...r.body.data.scopes].sort(), [...scopesOfRole('member')].sort());
    const nora = sessionOf(r);
    assert.equal((await asPerson(h, nora, 'POST', '/api/v1/api-keys', { body: { name: 'all', scopes: SCOPES } })).status, 403);
  });

  it('a person (or key) holding every scope still adds admins and issues their links', async () => {
    const admin = await signIn(h, 'adam@acme.test', PASSWORD);
    assert.equal((await asPerson(h, admin, 'POST', '/api/v1/users', { body: { email: 'ada@acme.test', name: 'Ada', role: 'admin' } })).status, 201);
    assert.equal((await h.req('POST', `/api/v1/users/${adminId}/password-link`)).status, 201, 'the owner key holds every scope');
  });

  it('a key cannot mint a key that outlives it: omitted expiry inherits its own, later or never is 403', async () => {
    const ends = new Date(h.clock.now() + 30 * DAY).toISOString();
    const expiring = await key(['api_keys:write', 'alerts:read'], ends);
    const inherited = await h.ok('POST', '/api/v1/api-keys', { key: expiring, body: { name: 'child', scopes: ['alerts:read'] } }, 201);
    assert.equal(inherited.data.expiresAt, ends);
    for (const expiresAt of [null, new Date(h.clock.now() + 31 * DAY).toISOString()]) {
      const r = await h.req('POST', '/api/v1/api-keys', { key: expiring, body: { name: 'forever', scopes: ['alerts:read'], expiresAt } });
      assert.equal(r.status, 403, r.raw);
      assert.match(r.body.error, /would outlive the calling key/);
    }
    const sooner = new Date(h.clock.now() + 29 * DAY).toISOString();
    assert.equal((await h.ok('POST', '/api/v1/api-keys', { key: expiring, body: { name: 'sooner', scopes: ['alerts:read'], expiresAt: sooner } }, 201)).data.expiresAt, sooner);
    assert.equal((await h.ok('POST', '/api/v1/api-keys', { body: { name: 'free', scopes: ['alerts:read'] } }, 201)).data.expiresAt, null, 'a key without expiry mints one without');
  });
});
