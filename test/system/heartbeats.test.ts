import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { createOrg, sleep, startServer, stopAll, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { startHttpSink, startSmtpSink, type HttpSink, type SmtpSink } from '../support/sinks.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';

/**
 * Heartbeats on real processes: two instances on one store, each running the checker every second. A
 * missed heartbeat opens exactly one alert, which pages through a workflow (a real SMTP server and a local
 * webhook receiver); the next ping, sent to the other instance, resolves it.
 */

const SECRET = 'heartbeat-e2e-secret-0123456789';
/** Checks this long (several checker rounds on each instance) after the first alert find no second one. */
const SETTLE_MS = 3000;

eachStore('heartbeats on two instances', { together: true }, (kind) => {
  let store: TestStore;
  let smtp: SmtpSink;
  let web: HttpSink;
  let servers: ServerProcess[] = [];
  let org: CreatedOrg;

  const api = async (server: ServerProcess, method: string, path: string, body?: unknown) => {
    const r = await server.request(method, `/api/v1${path}`, { key: org.apiKey, ...(body !== undefined && { body }) });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.raw}`);
    return r.body;
  };
  const heartbeatAlerts = async (): Promise<Array<Record<string, any>>> => (await api(servers[0] as ServerProcess, 'GET', '/alerts?source=heartbeat&limit=100')).data;

  before(async () => {
    store = await createTestStore(kind);
    smtp = await startSmtpSink();
    web = await startHttpSink();
    const env = {
      DATABASE_URL: store.url, SMTP_URL: smtp.url, SMTP_FROM: 'AlertFlow <alerts@alertflow.test>', OUTBOUND_ALLOW: '127.0.0.1/32',
      BASE_URL: 'https://alertflow.example.com', JOB_POLL_MS: '50', HEARTBEAT_CHECK_SECONDS: '1',
    };
    servers = [await startServer(env)];
    // The second starts once the first has migrated the store.
    servers.push(await startServer(env));
    org = await createOrg(store.url);
    await api(servers[0] as ServerProcess, 'POST', '/workflows', {
      name: 'Page on missed heartbeats', trigger: 'alert.created', conditions: { field: 'source', op: 'eq', value: 'heartbeat' },
      actions: [{ type: 'email', to: ['ops@example.com'] }, { type: 'webhook', url: `${web.base}/page`, secret: SECRET }],
    });
  });
  after(async () => {
    await stopAll(servers);
    await Promise.all([smtp.close(), web.close()]);
    await store.drop();
  });

  it('missed → exactly one alert and one page; a ping to the other instance → resolved', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const hb = (await api(a, 'POST', '/heartbeats', { name: 'nightly-backup', intervalSeconds: 2, graceSeconds: 0, labels: { team: 'dba' } })).data;
    const pinged = await b.request('GET', `/api/inbound/heartbeat/${hb.token}`);
    assert.equal(pinged.status, 200, pinged.raw);
    assert.equal(pinged.body.data.state, 'up');

    const alert = await eventually('the heartbeat alert', async () => (await heartbeatAlerts())[0], 20_000);
    assert.equal(alert.title, 'Heartbeat nightly-backup missed');
    assert.equal(alert.status, 'firing');
    assert.deepEqual(alert.labels, { team: 'dba', heartbeat: 'nightly-backup' });
    const mail = await eventually('the page by email', () => smtp.mails.find((m) => /Heartbeat nightly-backup missed/.test(m.headers.subject ?? '')));
    assert.deepEqual(mail.to, ['ops@example.com']);
    const hit = await eventually('the page by webhook', () => web.hits.find((x) => x.path === '/page'));
    assert.equal(JSON.parse(hit.body.toString('utf8')).alert.id, alert.id);

    await sleep(SETTLE_MS);
    assert.equal((await heartbeatAlerts()).length, 1, 'both instances checked; one alert');
    assert.equal(smtp.mails.filter((m) => /Heartbeat nightly-backup missed/.test(m.headers.subject ?? '')).length, 1, 'one email');
    assert.equal(web.hits.filter((x) => x.path === '/page').length, 1, 'one webhook');
    assert.equal((await api(b, 'GET', `/heartbeats/${hb.id}`)).data.state, 'down');

    const back = await a.request('POST', `/api/inbound/heartbeat/${hb.token}`);
    assert.equal(back.status, 200, back.raw);
    const resolved = (await api(b, 'GET', `/alerts/${alert.id}`)).data;
    assert.equal(resolved.status, 'resolved');
    assert.deepEqual(resolved.resolvedBy, { type: 'system', id: hb.id });
    assert.equal((await api(b, 'GET', `/heartbeats/${hb.id}`)).data.state, 'up');
    // Pinged every second from now on: it stays up, no new alert.
    for (let i = 0; i < 3; i++) {
      await sleep(1000);
      assert.equal((await b.request('GET', `/api/inbound/heartbeat/${hb.token}`)).status, 200);
    }
    assert.equal((await heartbeatAlerts()).filter((x) => x.status === 'firing').length, 0);
    await api(a, 'DELETE', `/heartbeats/${hb.id}`);
  });

  it('20 heartbeats missed at once: 20 alerts, none twice, with both instances checking', async () => {
    const [a] = servers as [ServerProcess];
    const before = (await heartbeatAlerts()).length;
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      api(a, 'POST', '/heartbeats', { name: `job-${i}`, intervalSeconds: 1, graceSeconds: 0 })));
    await eventually('20 alerts', async () => ((await heartbeatAlerts()).length === before + 20 ? true : undefined), 20_000);
    await sleep(SETTLE_MS);
    const alerts = await heartbeatAlerts();
    assert.equal(alerts.length, before + 20);
    const fingerprints = new Set(alerts.map((x) => x.fingerprint));
    assert.equal(fingerprints.size, alerts.length, 'no fingerprint twice');
    for (const m of made) assert.ok(fingerprints.has(`heartbeat:${m.data.id}`));
  });
});
