import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { asPerson, sessionOf, signIn } from '../support/sessions.ts';
import { eachStore } from '../support/stores.ts';

const body = (token: string, organizationName = 'First Org') =>
  ({ token, organizationName, name: 'Grace', email: 'grace@first.test', password: 'a long enough password' });

eachStore('first-run setup', { together: true }, (kind) => {
  let h: Harness;
  before(async () => {
    h = await startHarness(kind);
    // The harness starts with an organization; this suite needs the store of a fresh install.
    const db = h.c.store.db;
    for (const table of ['audit_events', 'api_keys', 'users', 'orgs'] as const) await db.deleteFrom(table).execute();
  });
  after(() => h.close());

  const orgCount = async () => Number((await h.c.store.db.selectFrom('orgs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('creates the first organization and its owner once, only with the token, and signs in', async () => {
    assert.deepEqual((await h.ok('GET', '/api/v1/auth/setup', { key: null })).data, { needed: true });
    const token = await h.c.auth.issueSetupToken();

    const wrong = await h.req('POST', '/api/v1/auth/setup', { key: null, body: body(`${token}x`) });
    assert.equal(wrong.status, 404);
    assert.equal(wrong.body.code, 'NOT_FOUND');
    const crossSite = await h.req('POST', '/api/v1/auth/setup', { key: null, headers: { origin: 'https://evil.test' }, body: body(token) });
    assert.equal(crossSite.status, 403);
    const weak = await h.req('POST', '/api/v1/auth/setup', { key: null, body: { ...body(token), password: 'short' } });
    assert.equal(weak.status, 400);
    assert.equal(weak.body.details[0].path, '/password');
    assert.equal(await orgCount(), 0, 'refused attempts change nothing');

    const r = await h.req('POST', '/api/v1/auth/setup', { key: null, body: body(token) });
    assert.equal(r.status, 201, r.raw);
    assert.equal(r.body.data.user.role, 'owner');
    assert.equal(r.body.data.organization.name, 'First Org');
    const s = sessionOf(r);
    assert.equal((await asPerson(h, s, 'GET', '/api/v1/users')).body.data[0].email, 'grace@first.test');
    assert.equal((await asPerson(h, s, 'POST', '/api/v1/integrations', { body: { name: 'first' } })).status, 201, 'the owner may do everything');

    assert.deepEqual((await h.ok('GET', '/api/v1/auth/setup', { key: null })).data, { needed: false });
    const again = await h.req('POST', '/api/v1/auth/setup', { key: null, body: body(token, 'Second') });
    assert.equal(again.status, 404, 'the link is dead');
    const fresh = await h.c.auth.issueSetupToken();
    assert.equal((await h.req('POST', '/api/v1/auth/setup', { key: null, body: body(fresh, 'Third') })).status, 404, 'no setup once an organization exists');
    assert.equal(await orgCount(), 1);
    await signIn(h, 'grace@first.test', 'a long enough password');
  });

  it('lets only one of concurrent setups with the token through', async () => {
    await h.c.store.db.deleteFrom('sessions').execute();
    for (const table of ['audit_events', 'integrations', 'api_keys', 'users', 'orgs'] as const) await h.c.store.db.deleteFrom(table).execute();
    const token = await h.c.auth.issueSetupToken();
    const results = await Promise.all([1, 2, 3, 4].map((i) => h.req('POST', '/api/v1/auth/setup', { key: null, body: body(token, `Race ${i}`) })));
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 404, 404, 404]);
    assert.equal(await orgCount(), 1);
  });
});
