import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson, asPerson, signIn } from '../support/sessions.ts';
import { eachStore } from '../support/stores.ts';

eachStore('audit log filters', { together: true }, (kind) => {
  let h: Harness;
  let userId: string;
  let keyCreatedAt: number;
  before(async () => {
    h = await startHarness(kind);
    userId = await addPerson(h, h.org.id, 'ada@acme.test', 'correct horse battery', 'admin');
    const s = await signIn(h, 'ada@acme.test', 'correct horse battery');
    h.clock.advance(60_000);
    keyCreatedAt = h.clock.now();
    assert.equal((await asPerson(h, s, 'POST', '/api/v1/api-keys', { body: { name: 'by ada', scopes: ['alerts:read'] } })).status, 201);
    h.clock.advance(60_000);
    assert.equal((await h.req('POST', '/api/v1/integrations', { body: { name: 'by key' } })).status, 201);
  });
  after(() => h.close());

  type Event = { action: string; actor: { type: string; id: string | null }; createdAt: string };
  const list = async (qs: string): Promise<Event[]> => (await h.ok('GET', `/api/v1/audit-log?limit=100&${qs}`)).data;

  it('filters by actor, newest first', async () => {
    const byAda = await list(`actorType=user&actorId=${userId}`);
    assert.deepEqual(byAda.map((e) => e.action), ['api_key.created', 'auth.sign_in']);
    const byKeys = await list('actorType=api_key');
    assert.ok(byKeys.length > 0 && byKeys.every((e) => e.actor.type === 'api_key'));
    assert.ok(byKeys.some((e) => e.action === 'integration.created'));
  });

  it('filters by time range [from, to)', async () => {
    const at = new Date(keyCreatedAt).toISOString();
    const next = new Date(keyCreatedAt + 1).toISOString();
    assert.deepEqual((await list(`from=${at}&to=${next}`)).map((e) => e.action), ['api_key.created']);
    assert.ok((await list(`to=${at}`)).every((e) => Date.parse(e.createdAt) < keyCreatedAt));
    assert.deepEqual((await list(`action=auth.sign_in&from=${at}`)), []);
  });

  it('pages through a filtered list with its cursor, and refuses bad filters with the envelope', async () => {
    const first = await h.ok('GET', `/api/v1/audit-log?limit=1&actorType=user&actorId=${userId}`);
    assert.equal(first.data[0].action, 'api_key.created');
    const second = await h.ok('GET', `/api/v1/audit-log?limit=1&actorType=user&actorId=${userId}&cursor=${first.meta.nextCursor}`);
    assert.equal(second.data[0].action, 'auth.sign_in');
    const bad = await h.req('GET', '/api/v1/audit-log?actorType=robot&from=yesterday');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
  });
});
