import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bySlugs } from '../../src/modules/clients/clients-repo.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

eachStore('clients API', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  let n = 0;
  async function create(org: Org, body: Record<string, unknown> = {}) {
    n += 1;
    const r = await h.req('POST', '/api/v1/clients', { key: org.key, body: { name: `Client ${n}`, slug: `client-${n}`, ...body } });
    assert.equal(r.status, 201, r.raw);
    return r.body.data as Record<string, any>;
  }
  const get = (org: Org, id: string) => h.req('GET', `/api/v1/clients/${id}`, { key: org.key });
  const total = async (org: Org) => (await h.req('GET', '/api/v1/clients', { key: org.key })).body.meta.total as number;

  /** An integration linked to the client (PUT /integrations clientId) and an alert of the client (its `labels.client`). */
  async function alertOf(org: Org, client: Record<string, any>, title: string) {
    const integ = await h.integration(org);
    const linked = await h.req('PUT', `/api/v1/integrations/${integ.id}`, { key: org.key, body: { clientId: client.id } });
    assert.equal(linked.status, 200, linked.raw);
    assert.equal(linked.body.data.clientId, client.id);
    const sent = await h.ingest(integ.path, { title, severity: 'high', labels: { env: 'prod', client: client.slug } });
    assert.equal(sent.status, 200, sent.raw);
    const alertId = sent.body.data.alerts[0].alertId as string;
    const alert = await h.req('GET', `/api/v1/alerts/${alertId}`, { key: org.key });
    assert.equal(alert.body.data.clientId, client.id, 'ingest attached the client');
    return { alertId, integrationId: integ.id };
  }

  async function suppressionWindow(org: Org, clientId: string | null) {
    // No suppression API yet: the row is inserted as that module will store it.
    const id = `sup_test_${Math.random().toString(36).slice(2)}`;
    const now = h.clock.now();
    await h.c.store.db.insertInto('suppression_windows').values({
      id, org_id: org.id, name: 'maintenance', description: null, starts_at: now, ends_at: now + 3_600_000,
      matchers: '[]', recurrence: null, timezone: 'UTC', client_id: clientId, created_at: now, updated_at: now,
    }).execute();
    return id;
  }

  it('POST: 201 with the client; optional fields default to null; GET /{id} returns it', async () => {
    const org = await h.newOrg();
    const r = await h.req('POST', '/api/v1/clients', { key: org.key, body: { name: 'Acme Corp', slug: 'acme' } });
    assert.equal(r.status, 201, r.raw);
    const d = r.body.data;
    assert.match(d.id, /^cli_/);
    assert.deepEqual(d, { id: d.id, name: 'Acme Corp', slug: 'acme', contactEmail: null, notes: null, reportRecipients: [], createdAt: iso(h.clock.now()), updatedAt: iso(h.clock.now()) });
    const full = await create(org, { name: 'Globex', slug: 'globex.eu_1-a', contactEmail: 'ops@globex.test', notes: 'Pager duty 24/7.\nCall first.' });
    assert.equal(full.slug, 'globex.eu_1-a');
    assert.equal(full.contactEmail, 'ops@globex.test');
    assert.equal(full.notes, 'Pager duty 24/7.\nCall first.');
    const one = await get(org, d.id);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data, d);
    const longest = await create(org, { name: 'x'.repeat(200), slug: 'a'.repeat(100), notes: 'n'.repeat(10_000) });
    assert.equal(longest.slug.length, 100);
  });

  it('GET lists newest first with keyset pages; each client exactly once even while new ones arrive', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    await create(other);
    const made: Array<Record<string, any>> = [];
    for (let i = 0; i < 5; i++) {
      made.push(await create(org));
      if (i !== 2) h.clock.advance(1000); // two clients share a creation time: the id breaks the tie
    }
    const first = await h.req('GET', '/api/v1/clients?limit=2', { key: org.key });
    assert.equal(first.status, 200);
    assert.equal(first.body.meta.total, 5);
    assert.equal(first.body.meta.hasMore, true);
    await create(org); // arrives after the first page: not part of this walk
    const seen = [...first.body.data];
    let cursor = first.body.meta.nextCursor as string | null;
    while (cursor) {
      const page = await h.req('GET', `/api/v1/clients?limit=2&cursor=${encodeURIComponent(cursor)}`, { key: org.key });
      assert.equal(page.status, 200);
      assert.equal('total' in page.body.meta, false, 'total is on the first page only');
      seen.push(...page.body.data);
      cursor = page.body.meta.nextCursor;
      if (!page.body.meta.hasMore) assert.equal(cursor, null);
    }
    assert.deepEqual(seen.map((c) => c.id).sort(), made.map((c) => c.id).sort(), 'every client once, none added');
    assert.equal(new Set(seen.map((c) => c.id)).size, 5);
    const times = seen.map((c) => Date.parse(c.createdAt));
    assert.deepEqual(times, [...times].sort((x, y) => y - x), 'newest first');
    const all = await h.req('GET', '/api/v1/clients?limit=100', { key: org.key });
    assert.equal(all.body.data.length, 6);
    assert.equal(all.body.meta.total, 6);

    await h.integration(org);
    await h.integration(org);
    const integCursor = (await h.req('GET', '/api/v1/integrations?limit=1', { key: org.key })).body.meta.nextCursor;
    assert.ok(integCursor);
    const wrongList = await h.req('GET', `/api/v1/clients?cursor=${encodeURIComponent(integCursor)}`, { key: org.key });
    assert.equal(wrongList.status, 400, 'a cursor of another list is refused');
    const otherOrg = await h.req('GET', `/api/v1/clients?cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { key: other.key });
    assert.equal(otherOrg.status, 400, 'a cursor of another organization is refused');
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'cursor=garbage']) {
      const r = await h.req('GET', `/api/v1/clients?${q}`, { key: org.key });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
    }
  });

  it('PUT is a partial update; null clears contactEmail and notes; PATCH is a synonym', async () => {
    const org = await h.newOrg();
    const d = await create(org, { name: 'Initech', slug: 'initech', contactEmail: 'it@initech.test', notes: 'TPS' });
    h.clock.advance(60_000);
    const put = await h.req('PUT', `/api/v1/clients/${d.id}`, { key: org.key, body: { name: 'Initech LLC' } });
    assert.equal(put.status, 200, put.raw);
    assert.deepEqual(put.body.data, { ...d, name: 'Initech LLC', updatedAt: iso(h.clock.now()) });
    h.clock.advance(60_000);
    const patch = await h.req('PATCH', `/api/v1/clients/${d.id}`, { key: org.key, body: { slug: 'initech-llc', contactEmail: null } });
    assert.equal(patch.status, 200, patch.raw);
    assert.deepEqual(patch.body.data, { ...d, name: 'Initech LLC', slug: 'initech-llc', contactEmail: null, updatedAt: iso(h.clock.now()) });
    const clear = await h.req('PUT', `/api/v1/clients/${d.id}`, { key: org.key, body: { notes: null, contactEmail: 'new@initech.test' } });
    assert.equal(clear.body.data.notes, null);
    assert.equal(clear.body.data.contactEmail, 'new@initech.test');
    const same = await h.req('PUT', `/api/v1/clients/${d.id}`, { key: org.key, body: { slug: 'initech-llc' } });
    assert.equal(same.status, 200, 'setting a client\'s own slug again is no conflict');
    assert.deepEqual((await get(org, d.id)).body.data, same.body.data, 'the update is stored');
    assert.equal(same.body.data.createdAt, d.createdAt);
  });

  it('a slug already used in the organization is 409 CONFLICT on create and on update, and changes nothing', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    const a = await create(org, { slug: 'taken' });
    const b = await create(org, { slug: 'free' });
    const dup = await h.req('POST', '/api/v1/clients', { key: org.key, body: { name: 'Again', slug: 'taken' } });
    assert.equal(dup.status, 409, dup.raw);
    assert.equal(dup.body.code, 'CONFLICT');
    assert.match(dup.body.error, /taken/);
    for (const method of ['PUT', 'PATCH']) {
      const r = await h.req(method, `/api/v1/clients/${b.id}`, { key: org.key, body: { name: 'renamed', slug: 'taken' } });
      assert.equal(r.status, 409, `${method}: ${r.raw}`);
      assert.equal(r.body.code, 'CONFLICT');
    }
    assert.deepEqual((await get(org, b.id)).body.data, b, 'the refused update changed nothing');
    assert.deepEqual((await get(org, a.id)).body.data, a);
    assert.equal(await total(org), 2);
    const created = await h.req('GET', '/api/v1/audit-log?action=client.created', { key: org.key });
    assert.equal(created.body.data.length, 2, 'the refused create recorded nothing');
    const updated = await h.req('GET', '/api/v1/audit-log?action=client.updated', { key: org.key });
    assert.equal(updated.body.data.length, 0, 'the refused updates recorded nothing');
    const elsewhere = await h.req('POST', '/api/v1/clients', { key: other.key, body: { name: 'Theirs', slug: 'taken' } });
    assert.equal(elsewhere.status, 201, 'slugs are unique per organization only');
    // Racing creates of one slug: the unique constraint lets exactly one through.
    const race = await Promise.all([1, 2, 3, 4].map((i) => h.req('POST', '/api/v1/clients', { key: org.key, body: { name: `r${i}`, slug: 'raced' } })));
    assert.deepEqual(race.map((r) => r.status).sort(), [201, 409, 409, 409]);
  });

  it('a bad slug, name, email or notes, an unknown field or an empty update is 400 and changes nothing', async () => {
    const org = await h.newOrg();
    const d = await create(org, { slug: 'stable' });
    const posts: Array<[unknown, string]> = [
      [{ name: 'x', slug: 'Acme' }, '/slug'],
      [{ name: 'x', slug: 'acme corp' }, '/slug'],
      [{ name: 'x', slug: 'acme/eu' }, '/slug'],
      [{ name: 'x', slug: '' }, '/slug'],
      [{ name: 'x', slug: 'a'.repeat(101) }, '/slug'],
      [{ name: 'x', slug: 'acmé' }, '/slug'],
      [{ name: 'x', slug: 7 }, '/slug'],
      [{ name: 'x' }, '/slug'],
      [{ slug: 'x' }, '/name'],
      [{ name: '', slug: 'x' }, '/name'],
      [{ name: 'x'.repeat(201), slug: 'x' }, '/name'],
      [{ name: 'x', slug: 'x', contactEmail: 'not-an-email' }, '/contactEmail'],
      [{ name: 'x', slug: 'x', notes: 'n'.repeat(10_001) }, '/notes'],
      [{ name: 'x', slug: 'x', orgId: org.id }, '/orgId'],
      [{ name: 'x', slug: 'x', id: 'cli_mine' }, '/id'],
      [{ name: 'x', slug: 'x', createdAt: iso(0) }, '/createdAt'],
    ];
    for (const [body, path] of posts) {
      const r = await h.req('POST', '/api/v1/clients', { key: org.key, body });
      assert.equal(r.status, 400, `POST ${JSON.stringify(body).slice(0, 80)}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.ok(r.body.details.some((x: { path: string }) => x.path === path), `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(r.body.details)}`);
    }
    const puts: Array<[string, unknown, string]> = [
      ['PUT', {}, ''],
      ['PATCH', {}, ''],
      ['PUT', { slug: 'UPPER' }, '/slug'],
      ['PATCH', { name: 'x', orgId: 'org_other' }, '/orgId'],
      ['PUT', { contactEmail: 'nope' }, '/contactEmail'],
      ['PUT', { name: null }, '/name'],
      ['PUT', { slug: null }, '/slug'],
    ];
    for (const [method, body, path] of puts) {
      const r = await h.req(method, `/api/v1/clients/${d.id}`, { key: org.key, body });
      assert.equal(r.status, 400, `${method} ${JSON.stringify(body)}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      if (path) assert.ok(r.body.details.some((x: { path: string }) => x.path === path), `${JSON.stringify(body)}: ${JSON.stringify(r.body.details)}`);
    }
    assert.deepEqual((await get(org, d.id)).body.data, d);
    assert.equal(await total(org), 1);
  });

  it('another organization\'s client is 404, like a missing one, and stays untouched', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    const theirs = await create(other, { slug: 'theirs' });
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'hijacked' }], ['PATCH', { slug: 'hijacked' }], ['DELETE', undefined]] as const) {
      const a = await h.req(method, `/api/v1/clients/${theirs.id}`, { key: org.key, ...(body && { body }) });
      const b = await h.req(method, '/api/v1/clients/cli_doesnotexist', { key: org.key, ...(body && { body }) });
      assert.equal(a.status, 404, method);
      assert.equal(a.body.code, 'NOT_FOUND');
      assert.deepEqual(a.body, b.body, method);
    }
    assert.deepEqual((await get(other, theirs.id)).body.data, theirs);
    const list = await h.req('GET', '/api/v1/clients?limit=100', { key: org.key });
    assert.deepEqual(list.body.data, []);
  });

  it('needs clients:read to read and clients:write to change', async () => {
    const org = await h.newOrg();
    const d = await create(org);
    const ro = (await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'ro', scopes: ['clients:read'] } })).body.data.key as string;
    assert.equal((await h.req('GET', `/api/v1/clients/${d.id}`, { key: ro })).status, 200);
    assert.equal((await h.req('GET', '/api/v1/clients', { key: ro })).status, 200);
    for (const [method, url, body] of [
      ['POST', '/api/v1/clients', { name: 'x', slug: 'x' }],
      ['PUT', `/api/v1/clients/${d.id}`, { name: 'x' }],
      ['PATCH', `/api/v1/clients/${d.id}`, { name: 'x' }],
      ['DELETE', `/api/v1/clients/${d.id}`, undefined],
    ] as const) {
      const r = await h.req(method, url, { key: ro, ...(body && { body }) });
      assert.equal(r.status, 403, `${method} ${url}`);
      assert.equal(r.body.code, 'FORBIDDEN');
      assert.match(r.body.error, /clients:write/);
    }
    const noRead = (await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'w', scopes: ['clients:write'] } })).body.data.key as string;
    for (const url of ['/api/v1/clients', `/api/v1/clients/${d.id}`]) {
      const r = await h.req('GET', url, { key: noRead });
      assert.equal(r.status, 403, url);
      assert.match(r.body.error, /clients:read/);
    }
    assert.deepEqual((await get(org, d.id)).body.data, d);
  });

  it('DELETE: 204; the client\'s alerts and integrations are kept and belong to no client; others are untouched', async () => {
    const org = await h.newOrg();
    const gone = await create(org, { slug: 'leaving' });
    const stays = await create(org, { slug: 'staying' });
    const mine = await alertOf(org, gone, 'leaving alert');
    const kept = await alertOf(org, stays, 'staying alert');
    const byClient = await h.req('GET', `/api/v1/alerts?clientId=${gone.id}`, { key: org.key });
    assert.deepEqual(byClient.body.data.map((a: { id: string }) => a.id), [mine.alertId], 'GET /alerts?clientId= filters by client');
    h.clock.advance(5000);

    const del = await h.req('DELETE', `/api/v1/clients/${gone.id}`, { key: org.key });
    assert.equal(del.status, 204, del.raw);
    assert.equal(del.raw, '');
    assert.equal((await get(org, gone.id)).status, 404);
    const alert = await h.req('GET', `/api/v1/alerts/${mine.alertId}`, { key: org.key });
    assert.equal(alert.status, 200, 'the alert is kept');
    assert.equal(alert.body.data.clientId, null);
    assert.equal(alert.body.data.title, 'leaving alert');
    assert.equal(alert.body.data.updatedAt, iso(h.clock.now()), 'unlinking is a change of the alert');
    const integ = await h.req('GET', `/api/v1/integrations/${mine.integrationId}`, { key: org.key });
    assert.equal(integ.status, 200, 'the integration is kept');
    assert.equal(integ.body.data.clientId, null);
    assert.equal((await h.req('GET', `/api/v1/alerts?clientId=${gone.id}`, { key: org.key })).body.meta.total, 0);
    assert.equal((await h.req('GET', `/api/v1/alerts/${kept.alertId}`, { key: org.key })).body.data.clientId, stays.id);
    assert.equal((await h.req('GET', `/api/v1/integrations/${kept.integrationId}`, { key: org.key })).body.data.clientId, stays.id);
    assert.equal((await h.req('GET', '/api/v1/alerts', { key: org.key })).body.meta.total, 2);
    assert.equal(await total(org), 1);
    for (const [method, body] of [['DELETE', undefined], ['PUT', { name: 'x' }], ['PATCH', { notes: null }]] as const) {
      const r = await h.req(method, `/api/v1/clients/${gone.id}`, { key: org.key, ...(body && { body }) });
      assert.equal(r.status, 404, `${method} after delete`);
    }
    const again = await h.req('POST', '/api/v1/clients', { key: org.key, body: { name: 'Back', slug: 'leaving' } });
    assert.equal(again.status, 201, 'a deleted client\'s slug is free again');
  });

  it('DELETE is 409 while a suppression window is scoped to the client, and changes nothing', async () => {
    const org = await h.newOrg();
    const d = await create(org, { slug: 'maintained' });
    const linked = await alertOf(org, d, 'linked');
    const windowId = await suppressionWindow(org, d.id);
    await suppressionWindow(org, null); // an organization-wide window does not stand in the way

    const r = await h.req('DELETE', `/api/v1/clients/${d.id}`, { key: org.key });
    assert.equal(r.status, 409, r.raw);
    assert.equal(r.body.code, 'CONFLICT');
    assert.match(r.body.error, /suppression windows/);
    assert.deepEqual((await get(org, d.id)).body.data, d, 'the client is still there');
    assert.equal((await h.req('GET', `/api/v1/alerts/${linked.alertId}`, { key: org.key })).body.data.clientId, d.id);
    assert.equal((await h.req('GET', `/api/v1/integrations/${linked.integrationId}`, { key: org.key })).body.data.clientId, d.id);
    const window = await h.c.store.db.selectFrom('suppression_windows').select('client_id').where('id', '=', windowId).executeTakeFirstOrThrow();
    assert.equal(window.client_id, d.id, 'the window keeps its scope');
    assert.equal((await h.req('GET', '/api/v1/audit-log?action=client.deleted', { key: org.key })).body.data.length, 0);

    await h.c.store.db.deleteFrom('suppression_windows').where('id', '=', windowId).execute();
    assert.equal((await h.req('DELETE', `/api/v1/clients/${d.id}`, { key: org.key })).status, 204, 'without the window the delete goes through');
    assert.equal((await h.req('GET', `/api/v1/alerts/${linked.alertId}`, { key: org.key })).body.data.clientId, null);
  });

  it('records client.created, client.updated and client.deleted audit events', async () => {
    const org = await h.newOrg();
    const keyId = (await h.req('GET', '/api/v1/api-keys', { key: org.key })).body.data[0].id;
    const d = await create(org, { slug: 'audited' });
    await h.req('PUT', `/api/v1/clients/${d.id}`, { key: org.key, body: { name: 'Audited 2', notes: 'x' } });
    await h.req('DELETE', `/api/v1/clients/${d.id}`, { key: org.key });
    for (const action of ['client.created', 'client.updated', 'client.deleted']) {
      const r = await h.req('GET', `/api/v1/audit-log?action=${action}`, { key: org.key });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.length, 1, action);
      const [e] = r.body.data;
      assert.deepEqual(e.target, { type: 'client', id: d.id });
      assert.deepEqual(e.actor, { type: 'api_key', id: keyId });
    }
    const updated = (await h.req('GET', '/api/v1/audit-log?action=client.updated', { key: org.key })).body.data[0];
    assert.deepEqual(updated.metadata.changed, ['name', 'notes']);
    assert.equal((await h.req('PUT', '/api/v1/clients/cli_doesnotexist', { key: org.key, body: { name: 'x' } })).status, 404);
    assert.equal((await h.req('GET', '/api/v1/audit-log?action=client.updated', { key: org.key })).body.data.length, 1, 'a failed update records nothing');
  });

  it('a client\'s page lists: GET /integrations and /suppression with clientId return only that client\'s, paged, in the organization', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    const acme = await create(org, { slug: 'acme-lists' });
    const globex = await create(org, { slug: 'globex-lists' });
    const mine = [await h.integration(org, { name: 'Acme 1', clientId: acme.id }), await h.integration(org, { name: 'Acme 2', clientId: acme.id })];
    await h.integration(org, { name: 'Globex', clientId: globex.id });
    await h.integration(org, { name: 'No client' });
    const window = async (clientId: string | null) => {
      const starts = h.clock.now() + 60_000;
      const r = await h.req('POST', '/api/v1/suppression', { key: org.key, body: { name: `w ${clientId}`, startsAt: iso(starts), endsAt: iso(starts + 3_600_000), clientId } });
      assert.equal(r.status, 201, r.raw);
      return r.body.data.id as string;
    };
    const acmeWindow = await window(acme.id);
    await window(globex.id);
    await window(null);

    const integrations = await h.req('GET', `/api/v1/integrations?clientId=${acme.id}&limit=1`, { key: org.key });
    assert.equal(integrations.status, 200, integrations.raw);
    assert.equal(integrations.body.meta.total, 2);
    const next = await h.req('GET', `/api/v1/integrations?clientId=${acme.id}&limit=1&cursor=${encodeURIComponent(integrations.body.meta.nextCursor)}`, { key: org.key });
    assert.deepEqual([...integrations.body.data, ...next.body.data].map((i: any) => i.id).sort(), mine.map((i) => i.id).sort());
    assert.equal(next.body.meta.nextCursor, null);
    const unfiltered = await h.req('GET', `/api/v1/integrations?cursor=${encodeURIComponent(integrations.body.meta.nextCursor)}`, { key: org.key });
    assert.equal(unfiltered.status, 400, 'a cursor of the filtered list is not one of the whole list');

    const windows = await h.req('GET', `/api/v1/suppression?clientId=${acme.id}`, { key: org.key });
    assert.equal(windows.status, 200, windows.raw);
    assert.deepEqual(windows.body.data.map((w: any) => w.id), [acmeWindow]);
    assert.equal(windows.body.meta.total, 1);
    assert.equal((await h.req('GET', '/api/v1/suppression', { key: org.key })).body.meta.total, 3);

    for (const path of ['/api/v1/integrations', '/api/v1/suppression']) {
      const foreign = await h.req('GET', `${path}?clientId=${acme.id}`, { key: other.key });
      assert.equal(foreign.status, 200);
      assert.deepEqual(foreign.body.data, [], `${path}: another organization sees none of the client's`);
    }
  });

  it('bySlugs finds the organization\'s clients by slug, for the ingest lookup of labels.client', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    const a = await create(org, { slug: 'alpha' });
    const b = await create(org, { slug: 'beta' });
    await create(other, { slug: 'gamma' });
    const found = await bySlugs(h.c.store.db, org.id, ['alpha', 'beta', 'gamma', 'missing', 'alpha']);
    assert.deepEqual(found.map((r) => ({ ...r })).sort((x, y) => x.slug.localeCompare(y.slug)), [{ id: a.id, slug: 'alpha' }, { id: b.id, slug: 'beta' }]);
    assert.deepEqual(await bySlugs(h.c.store.db, org.id, []), []);
  });
});
