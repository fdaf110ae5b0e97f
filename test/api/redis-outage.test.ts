import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore, REDIS_URL } from '../support/stores.ts';

/** A TCP relay to the real Redis that the test can cut, as a network failure would. */
async function relay(target: URL): Promise<{ port: number; cut: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

eachStore('rate limits in Redis, and Redis going away', { together: true }, (kind) => {
  let h: Harness;
  let link: Awaited<ReturnType<typeof relay>>;
  const direct = new Redis(REDIS_URL, { lazyConnect: true });
  before(async () => {
    link = await relay(new URL(REDIS_URL));
    h = await startHarness(kind, { REDIS_URL: `redis://127.0.0.1:${link.port}`, RATE_LIMIT_INGEST_PER_MINUTE: '1000' });
    await direct.connect();
  });
  after(async () => {
    await h.close();
    direct.disconnect();
  });

  it('counts in Redis while it is there, and keeps accepting and storing alerts when it is not', async () => {
    const integ = await h.integration();
    const first = await h.ingest(integ.path, { title: 'before the outage', severity: 'high' });
    assert.equal(first.status, 200);
    const keys = await direct.keys(`*${integ.id}*`);
    assert.ok(keys.length > 0, 'the ingest budget lives in Redis');

    await link.cut();
    const during = await h.ingest(integ.path, { title: 'during the outage', severity: 'critical' });
    assert.equal(during.status, 200, during.raw);
    assert.equal(during.body.data.alerts[0].action, 'created');
    assert.ok(Number(during.headers['x-ratelimit-remaining']) >= 0);
    const list = await h.req('GET', `/api/v1/alerts?integrationId=${integ.id}`);
    assert.equal(list.status, 200);
    assert.equal(list.body.meta.total, 2, 'both alerts are stored');
  });
});
