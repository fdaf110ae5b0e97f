import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createIntegration, createOrg, runCli, sleep, startServer, stopAll, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { createTestStore, REDIS_URL, type StoreKind, type TestStore } from '../support/stores.ts';

/**
 * Several app instances (separate OS processes) on one store: what the contract promises "also under
 * concurrent requests and several app instances" must hold with real processes, not in-process fakes.
 */

interface Pair {
  store: TestStore;
  a: ServerProcess;
  b: ServerProcess;
  org: CreatedOrg;
}

async function startPair(kind: StoreKind, env: Record<string, string> = {}): Promise<{ store: TestStore; servers: ServerProcess[] }> {
  const store = await createTestStore(kind);
  const servers: ServerProcess[] = [];
  try {
    // Both start at once on a fresh store, so they also race on running the migrations.
    const started = await Promise.allSettled([0, 1].map(() => startServer({ DATABASE_URL: store.url, ...env })));
    for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    await stopAll(servers);
    await store.drop();
    throw err;
  }
  return { store, servers };
}

/** Two servers on one fresh store for the enclosing suite, started together and always stopped. */
function usePair(kind: StoreKind, env: Record<string, string> = {}): Pair {
  const p = {} as Pair;
  let servers: ServerProcess[] = [];
  before(async () => {
    const started = await startPair(kind, env);
    servers = started.servers;
    Object.assign(p, { store: started.store, a: servers[0], b: servers[1] });
    p.org = await createOrg(p.store.url);
  });
  after(async () => {
    try {
      await stopAll(servers);
    } finally {
      await p.store?.drop();
    }
  });
  return p;
}

async function racesOnOneFingerprint(p: Pair, total: number): Promise<void> {
  const integ = await createIntegration(p.a, p.org.apiKey);
  const payload = { title: 'Disk full on db1', severity: 'critical', fingerprint: 'disk-db1' };
  const results = await Promise.all(Array.from({ length: total }, (_, i) =>
    (i % 2 === 0 ? p.a : p.b).request('POST', integ.path, { body: payload })));

  for (const r of results) assert.equal(r.status, 200, r.raw);
  const outcomes = results.map((r) => r.body.data.alerts[0]);
  assert.equal(outcomes.filter((o) => o.action === 'created').length, 1, 'exactly one request created the alert');
  assert.equal(outcomes.filter((o) => o.action === 'deduplicated').length, total - 1);
  assert.equal(new Set(outcomes.map((o) => o.alertId)).size, 1, 'every request names the same alert');

  for (const s of [p.a, p.b]) {
    const list = await s.request('GET', '/api/v1/alerts?fingerprint=disk-db1', { key: p.org.apiKey });
    assert.equal(list.status, 200, list.raw);
    assert.equal(list.body.meta.total, 1, `one alert, seen from instance ${s.pid}`);
    assert.equal(list.body.data[0].id, outcomes[0].alertId);
    assert.equal(list.body.data[0].occurrences, total);
    assert.equal(list.body.data[0].status, 'firing');
  }
}

async function revocationIsSeenByTheOther(p: Pair): Promise<void> {
  const created = await p.a.request('POST', '/api/v1/api-keys', { key: p.org.apiKey, body: { name: 'ci', scopes: ['alerts:read'] } });
  assert.equal(created.status, 201, created.raw);
  const { id, key } = created.body.data as { id: string; key: string };
  assert.equal((await p.b.request('GET', '/api/v1/alerts', { key })).status, 200, 'the new key works on the other instance');
  assert.equal((await p.a.request('GET', '/api/v1/alerts', { key })).status, 200);

  const del = await p.a.request('DELETE', `/api/v1/api-keys/${id}`, { key: p.org.apiKey });
  assert.equal(del.status, 204, del.raw);
  const next = await p.b.request('GET', '/api/v1/alerts', { key });
  assert.equal(next.status, 401, 'the very next request on the other instance is refused');
  assert.equal(next.body.code, 'UNAUTHORIZED');
  assert.equal((await p.a.request('GET', '/api/v1/alerts', { key })).status, 401);
  assert.equal((await p.b.request('GET', '/api/v1/alerts', { key: p.org.apiKey })).status, 200, 'other keys are unaffected');
}

async function signOutIsSeenByTheOther(p: Pair): Promise<void> {
  const password = 'correct horse battery staple';
  const added = await runCli(['user', 'add', '--org', p.org.org.id, '--email', 'ada@acme.test', '--name', 'Ada', '--role', 'admin', '--password', password, '--json'], { DATABASE_URL: p.store.url });
  assert.equal(added.code, 0, added.stderr);
  const login = await p.a.request('POST', '/api/v1/auth/login', { body: { email: 'ada@acme.test', password } });
  assert.equal(login.status, 200, login.raw);
  const cookie = (login.headers.get('set-cookie') as string).split(';')[0] as string;
  const headers = { cookie, 'x-csrf-token': login.body.data.csrfToken as string };
  assert.equal((await p.b.request('GET', '/api/v1/alerts', { headers })).status, 200, 'the session works on the other instance');
  assert.equal((await p.a.request('POST', '/api/v1/auth/logout', { headers })).status, 204);
  const next = await p.b.request('GET', '/api/v1/alerts', { headers });
  assert.equal(next.status, 401, 'the very next request on the other instance is refused');
}

describe('two instances on one PostgreSQL database', () => {
  const p = usePair('postgres');

  it('100 identical firing payloads split between both instances make one alert with 100 occurrences', async () => {
    await racesOnOneFingerprint(p, 100);
  });

  it('a key revoked through one instance is refused by the other on the very next request', async () => {
    await revocationIsSeenByTheOther(p);
  });

  it('a dashboard session signed out through one instance is refused by the other on the very next request', async () => {
    await signOutIsSeenByTheOther(p);
  });
});

describe('two instances sharing rate limits through Redis', () => {
  const p = usePair('postgres', { REDIS_URL, RATE_LIMIT_INGEST_PER_MINUTE: '60' });

  it('the ingest budget of 60 per minute is one budget: the 61st request is 429 on either instance', async () => {
    // The limiter keys contain the integration id, random per run, so no other run shares this budget.
    const integ = await createIntegration(p.a, p.org.apiKey);
    // The window is the wall-clock minute: start early enough in one that all requests fall into it.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await sleep(left + 250);

    for (let i = 0; i < 60; i++) {
      const s = i % 2 === 0 ? p.a : p.b;
      const r = await s.request('POST', integ.path, { body: { title: `check ${i}`, severity: 'low' } });
      assert.equal(r.status, 200, `request ${i + 1} of 60 (instance ${s.pid}): ${r.raw}`);
      assert.equal(r.headers.get('x-ratelimit-limit'), '60');
      assert.equal(r.headers.get('x-ratelimit-remaining'), String(59 - i), 'both instances count against one budget');
    }
    for (const s of [p.a, p.b, p.a]) {
      const r = await s.request('POST', integ.path, { body: { title: 'one too many', severity: 'low' } });
      assert.equal(r.status, 429, `instance ${s.pid}: ${r.raw}`);
      assert.equal(r.body.code, 'RATE_LIMITED');
      assert.ok(Number(r.headers.get('retry-after')) >= 1, 'Retry-After in whole seconds ≥ 1');
      assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
    }
    const list = await p.b.request('GET', `/api/v1/alerts?integrationId=${integ.id}&limit=100`, { key: p.org.apiKey });
    assert.equal(list.body.meta.total, 60, 'the refused requests stored nothing');
  });

  it('a key revoked through one instance is refused by the other on the very next request', async () => {
    await revocationIsSeenByTheOther(p);
  });
});

describe('two instances on one SQLite file', () => {
  const p = usePair('sqlite');

  it('100 identical firing payloads split between both processes make one alert with 100 occurrences', async () => {
    await racesOnOneFingerprint(p, 100);
  });

  it('a key revoked through one process is refused by the other on the very next request', async () => {
    await revocationIsSeenByTheOther(p);
  });

  it('a dashboard session signed out through one process is refused by the other on the very next request', async () => {
    await signOutIsSeenByTheOther(p);
  });
});
