import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createIntegration, createOrg, startServer, stopAll, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';

/**
 * Ingest caches integrations by token, and each organization's suppression windows and client slugs. Two
 * server processes share one store; every change made through one instance must govern the very next
 * request on the other, whose caches are warm from earlier requests.
 */
eachStore('ingest caches across two instances', { together: true }, (kind) => {
  let store: TestStore;
  let servers: ServerProcess[] = [];
  let a: ServerProcess;
  let b: ServerProcess;
  let org: CreatedOrg;

  before(async () => {
    store = await createTestStore(kind);
    org = await createOrg(store.url);
    // The instance under test (b) writes SQLite batches on its writer thread: a third connection to the file.
    servers = await Promise.all([{}, { INGEST_WRITER_THREAD: 'true' }].map((env) => startServer({ DATABASE_URL: store.url, ...env })));
    [a, b] = servers as [ServerProcess, ServerProcess];
  });
  after(async () => {
    try {
      await stopAll(servers);
    } finally {
      await store?.drop();
    }
  });

  const admin = async (method: string, url: string, body?: unknown) => {
    const r = await a.request(method, url, { key: org.apiKey, ...(body === undefined ? {} : { body }) });
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${r.raw}`);
    return r.body?.data as Record<string, unknown>;
  };
  let n = 0;
  const send = (path: string, extra: Record<string, unknown> = {}) =>
    b.request('POST', path, { body: { title: `cache probe ${n}`, severity: 'low', fingerprint: `probe-${n++}`, ...extra } });
  const accepted = async (path: string, extra: Record<string, unknown> = {}) => {
    const r = await send(path, extra);
    assert.equal(r.status, 200, r.raw);
    return r.body.data.alerts[0] as { alertId: string; action: string; status: string };
  };
  const clientOf = async (alertId: string) =>
    (await b.request('GET', `/api/v1/alerts/${alertId}`, { key: org.apiKey })).body.data.clientId as string | null;

  it('a token rotated on one instance is refused by the other on the next request, and the new one works', async () => {
    const integ = await createIntegration(a, org.apiKey);
    await accepted(integ.path);
    await accepted(integ.path);
    const rotated = await admin('POST', `/api/v1/integrations/${integ.id}/rotate-token`);
    const old = await send(integ.path);
    assert.equal(old.status, 401, old.raw);
    await accepted(`/api/inbound/webhook/${rotated.token as string}`);
  });

  it('an integration disabled on one instance is refused by the other on the next request, and enabled again accepted', async () => {
    const integ = await createIntegration(a, org.apiKey);
    await accepted(integ.path);
    await admin('PATCH', `/api/v1/integrations/${integ.id}`, { enabled: false });
    assert.equal((await send(integ.path)).status, 401);
    await admin('PATCH', `/api/v1/integrations/${integ.id}`, { enabled: true });
    await accepted(integ.path);
  });

  it('an integration deleted on one instance is refused by the other on the next request', async () => {
    const integ = await createIntegration(a, org.apiKey);
    await accepted(integ.path);
    await admin('DELETE', `/api/v1/integrations/${integ.id}`);
    assert.equal((await send(integ.path)).status, 401);
  });

  it('a suppression window created on one instance holds the next alert on the other', async () => {
    const integ = await createIntegration(a, org.apiKey);
    assert.equal((await accepted(integ.path, { labels: { env: 'cache-test' } })).action, 'created');
    const now = Date.now();
    const w = await admin('POST', '/api/v1/suppression', {
      name: 'Maintenance', startsAt: new Date(now - 60_000).toISOString(), endsAt: new Date(now + 3_600_000).toISOString(),
      matchers: [{ field: 'labels.env', op: 'eq', value: 'cache-test' }],
    });
    const held = await accepted(integ.path, { labels: { env: 'cache-test' } });
    assert.equal(held.action, 'suppressed');
    assert.equal(held.status, 'suppressed');
    assert.equal((await accepted(integ.path, { labels: { env: 'other' } })).action, 'created', 'the matcher still decides');
    await admin('DELETE', `/api/v1/suppression/${w.id as string}`);
    assert.equal((await accepted(integ.path, { labels: { env: 'cache-test' } })).action, 'created', 'a deleted window holds nothing more');
  });

  it('a client created or renamed on one instance decides labels.client on the other on the next request', async () => {
    const integ = await createIntegration(a, org.apiKey);
    // Warm the other instance's slugs before the client exists.
    assert.equal(await clientOf((await accepted(integ.path, { labels: { client: 'globex' } })).alertId), null);
    const client = await admin('POST', '/api/v1/clients', { name: 'Globex', slug: 'globex' });
    assert.equal(await clientOf((await accepted(integ.path, { labels: { client: 'globex' } })).alertId), client.id);
    await admin('PATCH', `/api/v1/clients/${client.id as string}`, { slug: 'globex-corp' });
    assert.equal(await clientOf((await accepted(integ.path, { labels: { client: 'globex' } })).alertId), null, 'the old slug no longer matches');
    assert.equal(await clientOf((await accepted(integ.path, { labels: { client: 'globex-corp' } })).alertId), client.id);
  });
});
