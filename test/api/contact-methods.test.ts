import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson, asPerson, signIn, type Session } from '../support/sessions.ts';
import { eachStore } from '../support/stores.ts';

const PASSWORD = 'correct horse battery staple';
const SECRET = 'contact-webhook-secret-0123456789';
const MASK = '********';
const METHODS = '/api/v1/users/me/contact-methods';
const RULES = '/api/v1/users/me/notification-rules';

eachStore('contact methods and notification rules', { together: true }, (kind) => {
  let h: Harness;
  let mia: Session;
  let leo: Session;
  let miaId: string;
  before(async () => {
    h = await startHarness(kind);
    miaId = await addPerson(h, h.org.id, 'mia@acme.test', PASSWORD, 'member');
    await addPerson(h, h.org.id, 'leo@acme.test', PASSWORD, 'member');
    mia = await signIn(h, 'mia@acme.test', PASSWORD);
    leo = await signIn(h, 'leo@acme.test', PASSWORD);
  });
  after(() => h.close());

  async function add(s: Session, body: Record<string, unknown>): Promise<Record<string, any>> {
    const r = await asPerson(h, s, 'POST', METHODS, { body });
    assert.equal(r.status, 201, r.raw);
    return r.body.data;
  }
  const list = async (s: Session) => (await asPerson(h, s, 'GET', METHODS)).body.data as Array<Record<string, any>>;
  const clear = async (s: Session) => {
    for (const m of await list(s)) assert.equal((await asPerson(h, s, 'DELETE', `${METHODS}/${m.id}`)).status, 204);
  };

  it('adds, lists, reads, changes and deletes a member\'s own methods, secrets masked throughout', async () => {
    const email = await add(mia, { type: 'email', target: { to: 'mia@pager.test' } });
    assert.match(email.id, /^cm_/);
    assert.deepEqual({ ...email, id: '', createdAt: '', updatedAt: '' }, { id: '', type: 'email', label: 'mia@pager.test', target: { to: 'mia@pager.test' }, verified: true, createdAt: '', updatedAt: '' });
    const ntfy = await add(mia, { type: 'ntfy', label: 'Phone', target: { serverUrl: 'https://ntfy.example.com', topic: 'mia-pages', token: 'tk_0123456789' } });
    assert.deepEqual(ntfy.target, { serverUrl: 'https://ntfy.example.com', topic: 'mia-pages', token: MASK });
    const hook = await add(mia, { type: 'webhook', target: { url: 'https://hooks.example.com/pager', secret: SECRET } });
    assert.deepEqual([hook.label, hook.target], ['Webhook hooks.example.com', { url: 'https://hooks.example.com/pager', secret: MASK }]);
    const slack = await add(mia, { type: 'slack', target: { webhookUrl: 'https://hooks.slack.com/services/T0/B0/x' } });
    const teams = await add(mia, { type: 'teams', label: 'Teams', target: { webhookUrl: 'https://example.webhook.office.com/x' } });

    const all = await list(mia);
    assert.deepEqual(all.map((m) => m.id), [email.id, ntfy.id, hook.id, slack.id, teams.id], 'in the order added');
    assert.ok(!JSON.stringify(all).includes(SECRET) && !JSON.stringify(all).includes('tk_0123456789'), 'no secret in the list');
    assert.deepEqual((await asPerson(h, mia, 'GET', `${METHODS}/${ntfy.id}`)).body.data, ntfy);

    // The mask keeps the stored secret; the plan (internal) still has it.
    const relabelled = await asPerson(h, mia, 'PATCH', `${METHODS}/${hook.id}`, { body: { label: 'Pager bridge', target: { url: 'https://hooks.example.com/v2', secret: MASK } } });
    assert.equal(relabelled.status, 200, relabelled.raw);
    assert.deepEqual([relabelled.body.data.label, relabelled.body.data.target], ['Pager bridge', { url: 'https://hooks.example.com/v2', secret: MASK }]);
    const plan = await h.c.contacts.planFor(h.org.id, miaId);
    assert.deepEqual(plan.find((s) => s.channel === 'webhook')?.target, { url: 'https://hooks.example.com/v2', secret: SECRET });
    // Leaving the token out removes it.
    const untokened = await asPerson(h, mia, 'PUT', `${METHODS}/${ntfy.id}`, { body: { target: { serverUrl: 'https://ntfy.example.com', topic: 'mia-pages' } } });
    assert.deepEqual(untokened.body.data.target, { serverUrl: 'https://ntfy.example.com', topic: 'mia-pages' });

    // The type cannot change through the target.
    const retyped = await asPerson(h, mia, 'PATCH', `${METHODS}/${email.id}`, { body: { target: { webhookUrl: 'https://hooks.slack.com/x' } } });
    assert.equal(retyped.status, 400, retyped.raw);
    assert.equal(retyped.body.details[0].path, '/target');
    assert.equal((await asPerson(h, mia, 'GET', `${METHODS}/${email.id}`)).body.data.target.to, 'mia@pager.test');

    assert.equal((await asPerson(h, mia, 'DELETE', `${METHODS}/${slack.id}`)).status, 204);
    assert.equal((await asPerson(h, mia, 'GET', `${METHODS}/${slack.id}`)).status, 404);
    assert.equal((await asPerson(h, mia, 'DELETE', `${METHODS}/${slack.id}`)).status, 404);
    const audit = (await h.ok('GET', '/api/v1/audit-log?limit=100')).data as Array<{ action: string; actor: { id: string } }>;
    assert.ok(audit.some((e) => e.action === 'contact_method.deleted' && e.actor.id === miaId));
    await clear(mia);
  });

  it('refuses bad targets with the path of the field, and stores nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'email', target: { to: 'not an address' } }, '/target/to'],
      [{ type: 'webhook', target: { url: 'ftp://files.example.com/x' } }, '/target/url'],
      [{ type: 'webhook', target: { url: 'not a url' } }, '/target/url'],
      [{ type: 'webhook', target: { url: 'http://127.0.0.1:9000/hook' } }, '/target/url'],
      [{ type: 'slack', target: { webhookUrl: 'http://10.1.2.3/hook' } }, '/target/webhookUrl'],
      [{ type: 'teams', target: { webhookUrl: 'https://user:pw@example.com/hook' } }, '/target/webhookUrl'],
      [{ type: 'webhook', target: { url: 'https://hooks.example.com/x', secret: 'short' } }, '/target/secret'],
      [{ type: 'webhook', target: { url: 'https://hooks.example.com/x', secret: MASK } }, '/target/secret'],
      [{ type: 'ntfy', target: { serverUrl: 'https://ntfy.sh', topic: 'has spaces' } }, '/target/topic'],
      [{ type: 'ntfy', target: { serverUrl: 'https://ntfy.sh' } }, '/target/topic'],
      [{ type: 'email', target: { to: 'a@b.test', extra: 1 } }, '/target/extra'],
    ];
    for (const [body, path] of cases) {
      const r = await asPerson(h, mia, 'POST', METHODS, { body });
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.raw}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.ok(r.body.details.some((d: { path: string }) => d.path.startsWith(path)), `${JSON.stringify(body)}: ${JSON.stringify(r.body.details)}`);
    }
    assert.equal((await asPerson(h, mia, 'POST', METHODS, { body: { type: 'sms', target: { to: '+100' } } })).status, 400);
    assert.deepEqual(await list(mia), []);
  });

  it('keeps each member to their own: another member\'s method is 404 to read, change, delete or name in a rule', async () => {
    const theirs = await add(leo, { type: 'email', target: { to: 'leo@pager.test' } });
    const mine = await add(mia, { type: 'email', target: { to: 'mia@pager.test' } });
    for (const [method, body] of [['GET', undefined], ['PATCH', { label: 'mine now' }], ['DELETE', undefined]] as const) {
      const r = await asPerson(h, mia, method, `${METHODS}/${theirs.id}`, { body });
      const missing = await asPerson(h, mia, method, `${METHODS}/cm_doesNotExist`, { body });
      assert.equal(r.status, 404, `${method}: ${r.raw}`);
      assert.equal(r.raw, missing.raw);
    }
    assert.deepEqual((await list(mia)).map((m) => m.id), [mine.id]);
    const rule = await asPerson(h, mia, 'PUT', RULES, { body: { rules: [{ contactMethodId: mine.id, afterMinutes: 0 }, { contactMethodId: theirs.id, afterMinutes: 5 }] } });
    assert.equal(rule.status, 400, rule.raw);
    assert.deepEqual(rule.body.details, [{ path: '/rules/1/contactMethodId', message: 'is not one of your contact methods' }]);
    assert.equal((await asPerson(h, leo, 'GET', `${METHODS}/${theirs.id}`)).body.data.label, 'leo@pager.test', 'unchanged');
    // An admin (here the owner's key) may read them, not change them.
    const read = await h.req('GET', `/api/v1/users/${miaId}/contact-methods`);
    assert.equal(read.status, 200, read.raw);
    assert.deepEqual(read.body.data.map((m: { id: string }) => m.id), [mine.id]);
    assert.equal((await h.req('GET', '/api/v1/users/usr_doesNotExist/contact-methods')).status, 404);
    assert.equal((await asPerson(h, leo, 'GET', `/api/v1/users/${miaId}/contact-methods`)).status, 403, 'a member cannot read another\'s');
    await clear(mia);
    await clear(leo);
  });

  it('answers an API key on /users/me/... with 403 FORBIDDEN in the envelope: a key has no member behind it', async () => {
    for (const [method, url, body] of [
      ['GET', METHODS, undefined], ['POST', METHODS, { type: 'email', target: { to: 'k@acme.test' } }],
      ['GET', RULES, undefined], ['PUT', RULES, { rules: [] }],
    ] as const) {
      const r = await h.req(method, url, { body });
      assert.equal(r.status, 403, `${method} ${url}: ${r.raw}`);
      assert.deepEqual(r.body, { error: 'Only a signed-in member has a profile; an API key cannot use this operation', code: 'FORBIDDEN', details: null });
    }
  });

  it('caps a member at 20 methods (409), and the cap is the member\'s own', async () => {
    for (let i = 0; i < 20; i++) await add(mia, { type: 'email', target: { to: `mia+${i}@pager.test` } });
    const over = await asPerson(h, mia, 'POST', METHODS, { body: { type: 'email', target: { to: 'one-more@pager.test' } } });
    assert.equal(over.status, 409, over.raw);
    assert.equal(over.body.code, 'CONFLICT');
    assert.equal((await list(mia)).length, 20);
    await add(leo, { type: 'email', target: { to: 'leo@pager.test' } });
    await clear(mia);
    await clear(leo);
  });

  it('replaces the rules as a whole, validates them, and drops a deleted method\'s rules', async () => {
    const ntfy = await add(mia, { type: 'ntfy', target: { serverUrl: 'https://ntfy.example.com', topic: 'mia' } });
    const email = await add(mia, { type: 'email', target: { to: 'mia@pager.test' } });
    assert.deepEqual((await asPerson(h, mia, 'GET', RULES)).body.data, { rules: [] });
    const rules = [{ contactMethodId: ntfy.id, afterMinutes: 0 }, { contactMethodId: email.id, afterMinutes: 3 }, { contactMethodId: ntfy.id, afterMinutes: 10 }];
    const put = await asPerson(h, mia, 'PUT', RULES, { body: { rules } });
    assert.equal(put.status, 200, put.raw);
    assert.deepEqual(put.body.data, { rules });
    assert.deepEqual((await asPerson(h, mia, 'GET', RULES)).body.data, { rules });

    for (const [body, path] of [
      [{ rules: [{ contactMethodId: ntfy.id, afterMinutes: 1441 }] }, '/rules/0/afterMinutes'],
      [{ rules: [{ contactMethodId: ntfy.id, afterMinutes: -1 }] }, '/rules/0/afterMinutes'],
      [{ rules: [{ contactMethodId: 'cm_gone', afterMinutes: 0 }] }, '/rules/0/contactMethodId'],
      [{ rules: [{ contactMethodId: ntfy.id, afterMinutes: 0 }, { contactMethodId: ntfy.id, afterMinutes: 0 }] }, '/rules/1'],
      [{ rules: Array.from({ length: 21 }, (_, i) => ({ contactMethodId: ntfy.id, afterMinutes: i })) }, '/rules'],
    ] as const) {
      const r = await asPerson(h, mia, 'PUT', RULES, { body });
      assert.equal(r.status, 400, r.raw);
      assert.equal(r.body.details[0].path, path, r.raw);
    }
    assert.deepEqual((await asPerson(h, mia, 'GET', RULES)).body.data, { rules }, 'bad input changes nothing');

    assert.equal((await asPerson(h, mia, 'DELETE', `${METHODS}/${ntfy.id}`)).status, 204);
    assert.deepEqual((await asPerson(h, mia, 'GET', RULES)).body.data, { rules: [{ contactMethodId: email.id, afterMinutes: 3 }] });
    assert.deepEqual((await asPerson(h, mia, 'PUT', RULES, { body: { rules: [] } })).body.data, { rules: [] });
    await clear(mia);
  });

  it('plans a page: account email with no methods, every method at once without rules, the rules\' delays otherwise', async () => {
    assert.deepEqual(await h.c.contacts.planFor(h.org.id, miaId), [{ afterMinutes: 0, channel: 'email', target: { to: 'mia@acme.test' } }]);
    const hook = await add(mia, { type: 'webhook', target: { url: 'https://hooks.example.com/p', secret: SECRET } });
    const ntfy = await add(mia, { type: 'ntfy', target: { serverUrl: 'https://ntfy.example.com', topic: 'mia', token: 'tk_secret' } });
    assert.deepEqual(await h.c.contacts.planFor(h.org.id, miaId), [
      { afterMinutes: 0, channel: 'webhook', target: { url: 'https://hooks.example.com/p', secret: SECRET } },
      { afterMinutes: 0, channel: 'ntfy', target: { serverUrl: 'https://ntfy.example.com', topic: 'mia', token: 'tk_secret' } },
    ]);
    await asPerson(h, mia, 'PUT', RULES, { body: { rules: [{ contactMethodId: hook.id, afterMinutes: 3 }, { contactMethodId: ntfy.id, afterMinutes: 0 }] } });
    assert.deepEqual(await h.c.contacts.planFor(h.org.id, miaId), [
      { afterMinutes: 0, channel: 'ntfy', target: { serverUrl: 'https://ntfy.example.com', topic: 'mia', token: 'tk_secret' } },
      { afterMinutes: 3, channel: 'webhook', target: { url: 'https://hooks.example.com/p', secret: SECRET } },
    ]);
    assert.deepEqual(await h.c.contacts.planFor(h.org.id, 'usr_doesNotExist'), []);
    const other = await h.newOrg('Other');
    assert.deepEqual(await h.c.contacts.planFor(other.id, miaId), [], 'a member of another organization has no plan here');
  });

  it('removing a member removes their methods and rules', async () => {
    const id = await addPerson(h, h.org.id, 'ada@acme.test', PASSWORD, 'member');
    const ada = await signIn(h, 'ada@acme.test', PASSWORD);
    const m = await add(ada, { type: 'email', target: { to: 'ada@pager.test' } });
    await asPerson(h, ada, 'PUT', RULES, { body: { rules: [{ contactMethodId: m.id, afterMinutes: 0 }] } });
    assert.equal((await h.req('DELETE', `/api/v1/users/${id}`)).status, 204);
    const left = async (table: 'contact_methods' | 'notification_rules') =>
      (await h.c.store.db.selectFrom(table).select('user_id').where('user_id', '=', id).execute()).length;
    assert.deepEqual([await left('contact_methods'), await left('notification_rules')], [0, 0]);
    assert.deepEqual(await h.c.contacts.planFor(h.org.id, id), []);
  });
});
