import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/db/database.ts';
import { createIntegration, createOrg, runCli, startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';

/** `alertflow …` as a user runs it: separate processes, configured only by environment variables. */

const KEY_RE = /^af_test_[0-9A-Za-z]{38}$/;
const isHint = (l: Record<string, unknown>) => typeof l.msg === 'string' && l.msg.includes('alertflow org create');

/** One line on stderr, nothing else. */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `expected a one-line message, got:\n${stderr}`);
  return lines[0] as string;
}

/**
 * An ingest request the server has certainly received: it is sent with `Expect: 100-continue`, and Node's
 * server only answers "100 Continue" once it has parsed the headers and handed the request to the app.
 * The body is sent when `finish()` is called.
 */
function openIngest(port: number, urlPath: string, payload: unknown): Promise<{ finish(): Promise<{ status: number; body: any }> }> {
  const body = JSON.stringify(payload);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, path: urlPath, method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
    });
    const response = new Promise<{ status: number; body: any }>((res, rej) => {
      req.on('response', (r) => {
        let text = '';
        r.setEncoding('utf8').on('data', (d: string) => { text += d; }).on('end', () => res({ status: r.statusCode ?? 0, body: text === '' ? null : JSON.parse(text) })).on('error', rej);
      });
      req.on('error', rej);
    });
    response.catch(() => undefined);
    req.on('error', reject);
    req.on('continue', () => resolve({ finish: () => { req.end(body); return response; } }));
    req.flushHeaders();
  });
}

describe('serve refuses a bad configuration', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: Array<[string, string]> = [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['LOG_LEVEL', 'loud'],
    ['ALERTFLOW_ENV', 'prod'],
    ['BASE_URL', 'not a url'],
    ['RATE_LIMIT_INGEST_PER_MINUTE', '-1'],
  ];
  it('stops with a non-zero exit code and a one-line error naming the variable', async () => {
    // Two processes at a time: eight Node start-ups at once on a loaded 2-core machine can outlast any wait.
    for (let i = 0; i < cases.length; i += 2) await Promise.all(cases.slice(i, i + 2).map(async ([name, value]) => {
      // A valid store, so that only the bad variable can stop the start (were it accepted, the server
      // would run until the bounded wait kills it, and the exit code would be null).
      const r = await runCli(['serve'], { DATABASE_URL: `sqlite://${path.join(dir, 'a.db')}`, [name]: value }, { timeoutMs: 30_000 });
      assert.notEqual(r.code, null, `${name}=${value}: the server started instead of refusing`);
      assert.notEqual(r.code, 0, `${name}=${value}`);
      assert.match(oneLine(r.stderr), new RegExp(`\\b${name}\\b`), `${name}=${value}: the message names the variable`);
      assert.doesNotMatch(r.stdout, /AlertFlow listening/);
    }));
  });
});

eachStore('CLI and server process', { together: true }, (kind) => {
  let store: TestStore;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];
  let first: ServerProcess;
  let orgId = '';
  let apiKey = '';

  before(async () => {
    store = await createTestStore(kind);
    env = { DATABASE_URL: store.url };
  });
  after(async () => {
    try {
      await stopAll(servers);
    } finally {
      await store.drop();
    }
  });

  it('migrate applies the migrations, then says the store is up to date', async () => {
    const r1 = await runCli(['migrate'], env);
    assert.equal(r1.code, 0, r1.stderr);
    assert.match(r1.stdout, /^applied: \S+/);
    const r2 = await runCli(['migrate'], env);
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(r2.stdout, 'up to date\n');
  });

  it('on first start with an empty store, the log says how to create the first organization', async () => {
    first = await startServer(env);
    servers.push(first);
    const hint = first.logs().find(isHint);
    assert.ok(hint, `no hint in:\n${first.stdout}`);
    assert.match(hint.msg as string, /--name/);
  });

  it('org create --json prints {org, owner, apiKey} and the key works against a server on the same store', async () => {
    const r = await runCli(['org', 'create', '--name', 'Acme Ops', '--owner-email', 'a@b.c', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.ok(r.stdout.endsWith('\n') && !r.stdout.trimEnd().includes('\n'), `one JSON line: ${r.stdout}`);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out), ['org', 'owner', 'apiKey']);
    assert.deepEqual(Object.keys(out.org), ['id', 'name']);
    assert.deepEqual(Object.keys(out.owner), ['id', 'email']);
    assert.equal(out.org.name, 'Acme Ops');
    assert.equal(out.owner.email, 'a@b.c');
    assert.equal(typeof out.org.id, 'string');
    assert.equal(typeof out.owner.id, 'string');
    assert.match(out.apiKey, KEY_RE);
    orgId = out.org.id;
    apiKey = out.apiKey;

    const alerts = await first.request('GET', '/api/v1/alerts', { key: apiKey });
    assert.equal(alerts.status, 200, alerts.raw);
    const users = await first.request('GET', '/api/v1/users', { key: apiKey });
    assert.equal(users.status, 200, users.raw);
    assert.deepEqual(users.body.data.map((u: { id: string; email: string; role: string }) => [u.id, u.email, u.role]), [[out.owner.id, 'a@b.c', 'owner']]);
    const keys = await first.request('GET', '/api/v1/api-keys', { key: apiKey });
    assert.equal(keys.status, 200, 'the key holds every scope, api_keys:read too');
    assert.equal((await first.request('GET', '/api/v1/alerts', { key: apiKey.replace('af_test_', 'af_live_') })).status, 401);
  });

  it('user add --json prints {user} and the user appears in GET /api/v1/users', async () => {
    const r = await runCli(['user', 'add', '--org', orgId, '--email', 'ann@b.c', '--name', 'Ann Admin', '--role', 'admin', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out), ['user']);
    assert.deepEqual(Object.keys(out.user).sort(), ['email', 'id', 'name', 'role']);
    assert.deepEqual({ ...out.user, id: undefined }, { id: undefined, email: 'ann@b.c', name: 'Ann Admin', role: 'admin' });

    const users = await first.request('GET', '/api/v1/users', { key: apiKey });
    assert.equal(users.status, 200, users.raw);
    const listed = users.body.data.find((u: { id: string }) => u.id === out.user.id);
    assert.ok(listed, 'the new user is listed');
    assert.equal(listed.email, 'ann@b.c');
    assert.equal(listed.name, 'Ann Admin');
    assert.equal(listed.role, 'admin');
  });

  it('user add with a bad role or an unknown organization exits non-zero with a one-line message', async () => {
    const [badRole, noOrg] = await Promise.all([
      runCli(['user', 'add', '--org', orgId, '--email', 'bob@b.c', '--name', 'Bob', '--role', 'boss', '--json'], env),
      runCli(['user', 'add', '--org', 'org_doesnotexist', '--email', 'bob@b.c', '--name', 'Bob', '--role', 'member', '--json'], env),
    ]);
    assert.notEqual(badRole.code, 0);
    assert.equal(badRole.stdout, '');
    assert.match(oneLine(badRole.stderr), /role/);
    assert.notEqual(noOrg.code, 0);
    assert.equal(noOrg.stdout, '');
    assert.match(oneLine(noOrg.stderr), /org_doesnotexist/);
    const users = await first.request('GET', '/api/v1/users', { key: apiKey });
    assert.ok(!users.body.data.some((u: { email: string }) => u.email === 'bob@b.c'), 'nothing was stored');
  });

  it('SIGTERM: in-flight ingest completes and is stored, buffered api_key.used events are flushed, exit code 0', async () => {
    const org = await createOrg(store.url, 'Shutdown Inc');
    const s = await startServer(env);
    servers.push(s);
    assert.equal(s.logs().find(isHint), undefined, 'no first-start hint once an organization exists');

    // Authenticated requests; their api_key.used events are buffered in memory.
    const integ = await createIntegration(s, org.apiKey);
    const paths = ['/api/v1/alerts', '/api/v1/users', '/api/v1/api-keys', `/api/v1/integrations/${integ.id}`, '/api/v1/alerts?limit=5'];
    for (const p of paths) assert.equal((await s.request('GET', p, { key: org.apiKey })).status, 200, p);
    const authenticated = paths.length + 1;

    const inflight = await openIngest(s.port, integ.path, { title: 'Arrived during shutdown', severity: 'high', fingerprint: 'in-flight' });
    s.signal('SIGTERM');
    await s.waitForLog((l) => l.msg === 'shutting down');
    const res = await inflight.finish();
    const exit = await s.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, `output:\n${s.output}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const alertId = res.body.data.alerts[0].alertId as string;

    const db = await createStore(store.config);
    try {
      const alert = await db.db.selectFrom('alerts').select(['id', 'fingerprint', 'status']).where('id', '=', alertId).executeTakeFirst();
      assert.deepEqual({ ...alert }, { id: alertId, fingerprint: 'in-flight', status: 'firing' }, 'the ingest answered 200 is stored');
      const used = await db.db.selectFrom('audit_events').select(['actor_id', 'metadata', 'uses'])
        .where('org_id', '=', org.org.id).where('action', '=', 'api_key.used').execute();
      assert.equal(used.reduce((n, u) => n + u.uses, 0), authenticated, 'every authenticated request counted, none lost on shutdown');
      // Uses are counted per minute and path: the two GETs of /api/v1/alerts are one event counting 2.
      const seen = used.flatMap((u) => Array.from({ length: u.uses }, () => db.readJson<{ path: string; method: string; status: number }>(u.metadata)));
      assert.deepEqual(seen.map((m) => `${m.method} ${m.path} ${m.status}`).sort(),
        ['POST /api/v1/integrations 201', ...paths.map((p) => `GET ${p.split('?')[0]} 200`)].sort());
      const keyRow = await db.db.selectFrom('api_keys').select('last_used_at').where('org_id', '=', org.org.id).executeTakeFirstOrThrow();
      assert.notEqual(keyRow.last_used_at, null, 'lastUsedAt was written with the flush');
    } finally {
      await db.close();
    }
  });

  it('SIGTERM with a client connected that has sent nothing yet: the server still exits at once, with code 0', async () => {
    const s = await startServer(env);
    servers.push(s);
    const silent = net.connect(s.port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => silent.once('connect', resolve).once('error', reject));
    const closed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
    silent.on('error', () => undefined);
    // Node would wait for its request until the 60 s headers timeout; the grace here is 5 s.
    assert.deepEqual(await s.stop(5_000), { code: 0, signal: null }, `output:\n${s.output}`);
    await closed;
  });

  it('logs never contain an API key or an ingest token, also on error paths', async () => {
    const org = await createOrg(store.url, 'Logs Ltd');
    // The most verbose level: whatever any level logs, this one logs too.
    const s = await startServer({ ...env, LOG_LEVEL: 'trace' });
    servers.push(s);
    const key = org.apiKey;
    const integ = await createIntegration(s, key);
    const created = await s.request('POST', '/api/v1/api-keys', { key, body: { name: 'temp', scopes: ['alerts:read'] } });
    assert.equal(created.status, 201, created.raw);
    const key2 = created.body.data.key as string;
    const expect = async (status: number, method: string, p: string, opts: Parameters<ServerProcess['request']>[2] = {}) => {
      const r = await s.request(method, p, opts);
      assert.equal(r.status, status, `${method} ${p}: ${r.raw}`);
    };

    await expect(200, 'GET', '/api/v1/alerts', { key });
    await expect(200, 'GET', `/api/v1/alerts?q=${encodeURIComponent(key)}`, { key });
    await expect(401, 'GET', '/api/v1/alerts', { key: `${key}x` });
    await expect(401, 'GET', '/api/v1/alerts', { headers: { authorization: key } });
    await expect(401, 'GET', '/api/v1/alerts', { key: key.replace('af_test_', 'af_live_') });
    await expect(400, 'POST', '/api/v1/api-keys', { key, body: { name: 'x', scopes: ['no:such'], key } });
    await expect(400, 'POST', '/api/v1/integrations', { key, body: '{"name":', headers: { 'content-type': 'application/json' } });
    await expect(404, 'GET', `/api/v1/alerts/${key}`, { key });
    await expect(204, 'DELETE', `/api/v1/api-keys/${created.body.data.id as string}`, { key });
    await expect(401, 'GET', '/api/v1/alerts', { key: key2 });

    await expect(200, 'POST', integ.path, { body: { title: 'ok', severity: 'low' } });
    await expect(400, 'POST', integ.path, { body: { title: 42 } });
    await expect(400, 'POST', integ.path, { body: '{not json', headers: { 'content-type': 'application/json' } });
    await expect(415, 'POST', integ.path, { body: 'title=x', headers: { 'content-type': 'text/plain' } });
    await expect(401, 'POST', `/api/inbound/webhook/${integ.token.split('').reverse().join('')}`, { body: { title: 'x', severity: 'low' } });
    await expect(404, 'GET', integ.path);
    await expect(404, 'GET', `${integ.path}/extra?token=${integ.token}`);

    const exit = await s.stop();
    assert.deepEqual(exit, { code: 0, signal: null });
    const out = s.output;
    assert.match(out, /AlertFlow listening/, 'the output was captured');
    // The access log: one line per request, named by route pattern (the ingest URL holds the token).
    const access = s.logs().filter((l) => l.msg === 'request');
    const ingested = access.find((l) => l.route === '/api/inbound/webhook/:token' && l.status === 200);
    assert.ok(ingested, 'an access-log line for the accepted ingest request');
    assert.equal(ingested.method, 'POST');
    assert.equal(ingested.orgId, org.org.id);
    assert.equal(typeof ingested.reqId, 'string');
    assert.equal(typeof ingested.durationMs, 'number');
    assert.ok(access.some((l) => l.route === '/api/v1/alerts' && l.status === 401 && l.orgId === null), 'refused requests are logged too');
    assert.ok(access.some((l) => l.route === null && l.status === 404), 'an unmatched URL is logged without its path');
    for (const [what, secret] of [['API key', key], ['revoked API key', key2], ['ingest token', integ.token]] as const) {
      assert.ok(!out.includes(secret), `the ${what} appears in the logs`);
      // The part after the recognizable prefix is the secret; no fragment of it may appear either.
      const tail = secret.slice(-20);
      assert.ok(!out.includes(tail), `part of the ${what} appears in the logs`);
    }
  });
});
