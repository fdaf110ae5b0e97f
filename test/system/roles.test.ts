import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createIntegration, createOrg, runCli, sleep, startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';

/** `serve --role api|worker` and the one-shot commands as separate processes on one store. */

const TOKEN = 'metrics-token-0123456789abcdef';

/** Jobs waiting in the `alert-events` queue, as the server's /metrics reports them (0 when the series is absent). */
async function eventJobs(s: ServerProcess): Promise<number> {
  const r = await s.request('GET', '/metrics', { key: TOKEN });
  assert.equal(r.status, 200, r.raw);
  const line = (r.raw).split('\n').find((l) => l.startsWith('alertflow_queue_depth{queue="alert-events"} '));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

/** Polls until `check` holds (bounded: a wait for background work, not a timing assertion). */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`${what} did not happen within ${timeoutMs} ms`);
    await sleep(100);
  }
}

eachStore('server roles and quiet one-shot commands', { together: true }, (kind) => {
  let store: TestStore;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];
  let api: ServerProcess;
  let orgId = '';
  let apiKey = '';

  before(async () => {
    store = await createTestStore(kind);
    env = { DATABASE_URL: store.url, METRICS_TOKEN: TOKEN };
  });
  after(async () => {
    try {
      await stopAll(servers);
    } finally {
      await store.drop();
    }
  });

  it('--role api answers the API and queues follow-up work without running it; the start-up log says role, version and store', async () => {
    const org = await createOrg(store.url, 'Roles Inc');
    orgId = org.org.id;
    api = await startServer(env, { args: ['--role', 'api'] });
    servers.push(api);
    const started = api.logs().find((l) => l.msg === 'AlertFlow listening') as Record<string, any>;
    assert.equal(started.role, 'api');
    assert.equal(started.workers, false);
    assert.match(started.version, /^\d+\.\d+\.\d+$/);
    assert.equal(started.store.kind, kind);
    if (kind === 'postgres') {
      assert.equal(started.store.host, new URL(store.url).host);
      assert.equal(started.store.database, new URL(store.url).pathname.slice(1));
    } else assert.equal(started.store.path, store.url.slice('sqlite://'.length));
    assert.equal(started.redis, null);
    assert.equal(started.smtp, null);

    apiKey = org.apiKey;
    const wf = await api.request('POST', '/api/v1/workflows', { key: apiKey, body: { name: 'Open incidents', trigger: 'alert.created', actions: [{ type: 'create_incident' }] } });
    assert.equal(wf.status, 201, wf.raw);
    const integ = await createIntegration(api, apiKey);
    assert.equal((await api.request('POST', integ.path, { body: { title: 'queued', severity: 'high' } })).status, 200);
    await eventually('the alert event reaching the queue', async () => (await eventJobs(api)) >= 1);
    await sleep(1000);
    assert.ok((await eventJobs(api)) >= 1, 'nobody works the queue in the api role');
  });

  it('org create and key create do no queue work and print only their JSON on stdout', async () => {
    const waiting = await eventJobs(api);
    const org = await runCli(['org', 'create', '--name', 'Second', '--json'], env);
    assert.equal(org.code, 0, org.stderr);
    assert.equal(org.stderr, '');
    assert.match(JSON.parse(org.stdout).apiKey, /^af_test_/);

    const read = await runCli(['key', 'create', '--org', orgId, '--scopes', 'alerts:read,incidents:read', '--name', 'recovered', '--json'], env);
    assert.equal(read.code, 0, read.stderr);
    assert.equal(read.stderr, '');
    const out = JSON.parse(read.stdout);
    assert.deepEqual(Object.keys(out), ['apiKey']);
    assert.equal(out.apiKey.name, 'recovered');
    assert.deepEqual(out.apiKey.scopes, ['alerts:read', 'incidents:read']);
    assert.equal(out.apiKey.prefix, out.apiKey.key.slice(0, 12));
    assert.equal((await api.request('GET', '/api/v1/alerts', { key: out.apiKey.key })).status, 200);
    assert.equal((await api.request('GET', '/api/v1/users', { key: out.apiKey.key })).status, 403);

    const all = await runCli(['key', 'create', '--org', orgId, '--scopes', 'all', '--name', 'owner again', '--json'], env);
    assert.equal(all.code, 0, all.stderr);
    const owner = JSON.parse(all.stdout).apiKey.key as string;
    assert.equal((await api.request('GET', '/api/v1/users', { key: owner })).status, 200);
    const keys = await api.request('GET', '/api/v1/api-keys', { key: owner });
    assert.equal(keys.body.data.length, 3, 'the org create key and the two recovered ones');
    assert.equal(await eventJobs(api), waiting, 'the commands took no job');
  });

  it('key create refuses unknown scopes and organizations with one line on stderr, storing nothing', async () => {
    const cases = [
      [['--org', orgId, '--scopes', 'alerts:read,root', '--name', 'x'], /unknown: root/],
      [['--org', 'org_missing', '--scopes', 'all', '--name', 'x'], /org_missing/],
      [['--org', orgId, '--name', 'x'], /--scopes is required/],
    ] as const;
    // One at a time: several Node start-ups at once on a loaded 2-core machine can outlast the wait.
    for (const [args, pattern] of cases) {
      const r = await runCli(['key', 'create', ...args, '--json'], env, { timeoutMs: 30_000 });
      assert.notEqual(r.code, null, 'finished');
      assert.notEqual(r.code, 0);
      assert.equal(r.stdout, '');
      assert.match(r.stderr.split('\n')[0] as string, pattern);
    }
    const owner = JSON.parse((await runCli(['key', 'create', '--org', orgId, '--scopes', 'api_keys:read', '--name', 'count', '--json'], env)).stdout).apiKey.key as string;
    const names = (await api.request('GET', '/api/v1/api-keys', { key: owner })).body.data.map((k: { name: string }) => k.name);
    assert.ok(!names.includes('x'), `no key of a refused command was stored: ${names.join(', ')}`);
  });

  it('--role worker runs the queued work and serves only /healthz, /readyz and /metrics', async () => {
    const worker = await startServer(env, { args: ['--role', 'worker'] });
    servers.push(worker);
    assert.equal(worker.logs().find((l) => l.msg === 'AlertFlow listening')?.role, 'worker');
    assert.equal((await worker.request('GET', '/healthz')).status, 200);
    assert.equal((await worker.request('GET', '/readyz')).status, 200);
    const notServed = await fetch(`${worker.url}/api/v1/alerts`);
    assert.equal(notServed.status, 404);
    await eventually('the worker emptying the queue', async () => (await eventJobs(api)) === 0);
    await eventually('the workflow opening the incident', async () => (await api.request('GET', '/api/v1/incidents', { key: apiKey })).body.data.length === 1);
  });

  it('an unknown role is refused before anything starts', async () => {
    const r = await runCli(['serve', '--role', 'boss'], env);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--role must be all, api or worker/);
  });
});
