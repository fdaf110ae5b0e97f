import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createOrg, startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';

const SETUP_LINK = /(https?:\/\/[^\s]+)\/setup\?token=([A-Za-z0-9_-]+)/;

eachStore('alertflow serve on an empty store', { together: true }, (kind) => {
  const servers: Array<ServerProcess | undefined> = [];
  const stores: TestStore[] = [];
  after(async () => {
    await stopAll(servers);
    for (const s of stores) await s.drop();
  });

  const linkOf = (s: ServerProcess) => s.logs().map((l) => SETUP_LINK.exec(String(l.msg))).find((m) => m !== null);

  it('logs a one-time setup link that creates the first organization, and none once one exists', async () => {
    const store = await createTestStore(kind);
    stores.push(store);
    const env = { DATABASE_URL: store.url, BASE_URL: 'http://dash.test:8080', JOB_WORKERS: 'false' };
    const first = await startServer(env);
    servers.push(first);
    const link = linkOf(first);
    assert.ok(link, `no setup link in the log:\n${first.stdout}`);
    assert.equal(link[1], 'http://dash.test:8080');
    assert.ok(first.stderr.split('\n').includes(link[0]), `the link alone on a line of its own, to copy whole:\n${first.stderr}`);
    const body = { token: link[2], organizationName: 'First', name: 'Grace', email: 'grace@first.test', password: 'a long enough password' };
    const r = await first.request('POST', '/api/v1/auth/setup', { body });
    assert.equal(r.status, 201, r.raw);
    assert.match(r.headers.get('set-cookie') ?? '', /^af_session=/);
    assert.equal((await first.request('POST', '/api/v1/auth/setup', { body })).status, 404);
    await first.stop();

    const second = await startServer(env);
    servers.push(second);
    assert.equal(linkOf(second), undefined, 'no link once an organization exists');
  });

  it('logs no link when the CLI created the organization first', async () => {
    const store = await createTestStore(kind);
    stores.push(store);
    await createOrg(store.url);
    const s = await startServer({ DATABASE_URL: store.url, JOB_WORKERS: 'false' });
    servers.push(s);
    assert.equal(linkOf(s), undefined);
    assert.deepEqual((await s.request('GET', '/api/v1/auth/setup')).body, { data: { needed: false } });
  });
});
