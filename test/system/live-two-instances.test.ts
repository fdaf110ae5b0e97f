import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createIntegration, createOrg, startServer, stopAll, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { openSse } from '../support/sse.ts';
import { createTestStore, type TestStore } from '../support/stores.ts';

/**
 * Two `alertflow serve` processes on one PostgreSQL: a stream open on B carries what was ingested through A
 * (the alert writer's row and NOTIFY reach B's poller), and a resume on A replays what B's stream carried.
 * Their fallback poll is set to 10 minutes, so that only NOTIFY can bring the event within the test's wait: no
 * clock is read, and a busy machine cannot fail it. How fast it arrives is `npm run bench:live`'s figure.
 */
const NO_POLL = { LIVE_POLL_MS: String(10 * 60_000) };
describe('live events across two instances (postgres)', { timeout: 120_000 }, () => {
  let store: TestStore;
  let servers: ServerProcess[] = [];
  let org: CreatedOrg;
  before(async () => {
    store = await createTestStore('postgres');
    servers = await Promise.all([0, 1].map(() => startServer({ DATABASE_URL: store.url, ...NO_POLL })));
    org = await createOrg(store.url);
  });
  after(async () => {
    try {
      await stopAll(servers);
    } finally {
      await store?.drop();
    }
  });

  it('an alert ingested through A arrives on a stream from B, woken by NOTIFY; resuming on A replays it', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const integ = await createIntegration(a, org.apiKey);
    const auth = { authorization: `Bearer ${org.apiKey}` };
    const onB = await openSse(`${b.url}/api/v1/events`, auth);
    assert.equal(onB.status, 200);
    const sent = await a.request('POST', integ.path, { body: { title: 'Disk full on db1', severity: 'critical' } });
    assert.equal(sent.status, 200, sent.raw);
    const alertId = sent.body.data.alerts[0].alertId as string;
    const arrived = await onB.next((e) => e.event === 'alert.created' && e.data.id === alertId, 30_000);
    onB.close();

    const resolved = await b.request('POST', `/api/v1/alerts/${alertId}/resolve`, { key: org.apiKey, body: {} });
    assert.equal(resolved.status, 200, resolved.raw);
    const onA = await openSse(`${a.url}/api/v1/events`, { ...auth, 'last-event-id': arrived.id as string });
    const replayed = await onA.next((e) => e.event === 'alert.resolved' && e.data.id === alertId, 10_000);
    assert.equal(onA.events.indexOf(replayed), 0, 'the missed event comes first');
    onA.close();
  });
});
