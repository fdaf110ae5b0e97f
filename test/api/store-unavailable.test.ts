import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createStore } from '../../src/db/database.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore, PG_ADMIN_URL, type StoreKind } from '../support/stores.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

/**
 * The store goes away under a running app: PostgreSQL behind a loopback proxy the test cuts (the shared
 * cluster is never touched), SQLite with its write lock held by another connection. Answers are 503 with
 * Retry-After in the envelope, nothing is stored, and the app recovers on its own when the store returns.
 */

/** Makes the store unreachable for the app, and back. */
interface Outage {
  begin(): Promise<void>;
  end(): Promise<void>;
  /** Releases what the outage holds, once the app has closed. */
  dispose(): Promise<void>;
}

async function harnessWithOutage(kind: StoreKind): Promise<{ h: Harness; outage: Outage }> {
  if (kind === 'postgres') {
    const admin = new URL(PG_ADMIN_URL);
    const proxy = new TcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    await proxy.open();
    const h = await startHarness(kind, {}, { via: (real) => (real.kind === 'postgres' ? { kind, url: proxy.route(real.url) } : real) });
    return { h, outage: { begin: () => proxy.cut(), end: () => proxy.open(), dispose: () => proxy.cut() } };
  }
  // node:sqlite waits busy_timeout (5 s) for the lock, then fails with SQLITE_BUSY.
  const h = await startHarness(kind);
  let holder: DatabaseSync | undefined;
  return {
    h,
    outage: {
      async begin() {
        holder = new DatabaseSync(h.store.config.kind === 'sqlite' ? h.store.config.file : '');
        holder.exec('begin immediate');
      },
      async end() {
        holder?.exec('rollback');
        holder?.close();
      },
      dispose: async () => undefined,
    },
  };
}

// One kind at a time: the SQLite case holds the file's write lock, and node:sqlite waits for it synchronously on this
// thread, which would stall the PostgreSQL block beside it.
eachStore('store unavailable', { together: false }, (kind) => {
  let h: Harness;
  let outage: Outage;
  let path = '';
  before(async () => {
    ({ h, outage } = await harnessWithOutage(kind));
    path = (await h.integration()).path;
  });
  after(async () => {
    await h.close();
    await outage.dispose();
  });

  const countAlerts = async () => (await h.ok('GET', '/api/v1/alerts')).meta.total as number;

  it('ingest answers 503 with Retry-After while the store is away, stores nothing, and recovers without a restart', async () => {
    await h.ingestAlert(path, { title: 'before', severity: 'high', fingerprint: 'before' });
    await outage.begin();
    try {
      const r = await h.ingest(path, { title: 'during', severity: 'high', fingerprint: 'during' });
      assert.equal(r.status, 503, r.raw);
      assert.deepEqual(r.body, { error: 'The service is temporarily unavailable; retry later', code: 'SERVICE_UNAVAILABLE', details: null });
      assert.ok(Number(r.headers['retry-after']) >= 1, `Retry-After: ${String(r.headers['retry-after'])}`);
      if (kind === 'sqlite') {
        // Once a write has waited the whole busy timeout (5 s) in vain, the next ones give up after 20 ms: the
        // sender of the next alert gets its 503 promptly, not after 5 s more of a stopped server.
        const started = performance.now();
        const again = await h.ingest(path, { title: 'during, again', severity: 'high', fingerprint: 'during-again' });
        const waited = performance.now() - started;
        assert.equal(again.status, 503, again.raw);
        assert.ok(waited < 4_000, `the second ingest while locked answered after ${Math.round(waited)} ms`);
      }
      if (kind === 'postgres') {
        const api = await h.req('GET', '/api/v1/alerts');
        assert.equal(api.status, 503, api.raw);
        assert.equal((await h.req('GET', '/readyz')).status, 503);
      }
    } finally {
      await outage.end();
    }
    assert.equal((await h.req('GET', '/readyz')).status, 200);
    await h.ingestAlert(path, { title: 'after', severity: 'high', fingerprint: 'after' });
    const alerts = (await h.ok('GET', '/api/v1/alerts')).data.map((a: { fingerprint: string }) => a.fingerprint).sort();
    assert.deepEqual(alerts, ['after', 'before'], 'the refused alert was not stored; the others were');
    const rejections = await h.ok('GET', `/api/v1/integrations/${(await h.ok('GET', '/api/v1/integrations')).data[0].id as string}/rejections`);
    assert.equal(rejections.data.length, 0, 'a store outage is not logged as the sender\'s rejection');
    assert.equal(await countAlerts(), 2);
  });

  it('API key uses counted while the store is away are written by the next flush: none lost, none twice', async () => {
    const org = await h.newOrg('Counted');
    const use = async () => assert.equal((await h.req('GET', '/api/v1/integrations', { key: org.key, ip: '203.0.113.9' })).status, 200);
    h.clock.advance(60_000 - (h.clock.now() % 60_000));
    for (let i = 0; i < 3; i++) await use();
    await outage.begin();
    try {
      await h.c.audit.flush(); // fails: the counts stay in memory
    } finally {
      await outage.end();
    }
    // Read on a connection of its own: the app's pool may still hold connections the outage cut.
    const reader = await createStore(h.store.config);
    try {
      const stored = async () => reader.db.selectFrom('audit_events').select(['uses']).where('org_id', '=', org.id).where('action', '=', 'api_key.used').execute();
      assert.deepEqual(await stored(), [], 'nothing written while the store was away');
      for (let i = 0; i < 2; i++) await use();
      await h.c.audit.flush();
      assert.deepEqual((await stored()).map((r) => r.uses), [5], 'the failed flush\'s 3 uses and the 2 after it, in one event');
    } finally {
      await reader.close();
    }
  });

  if (kind === 'postgres') {
    it('a connection dropped while checked out (inside a transaction) fails that transaction, not the process', async () => {
      const trx = h.c.store.db.transaction().execute(async (db) => {
        await sql`select 1`.execute(db);
        await outage.begin();
        // The socket is reset while the client sits checked out between two statements.
        await new Promise((resolve) => setTimeout(resolve, 100));
        await sql`select 1`.execute(db);
      });
      await assert.rejects(trx);
      await outage.end();
      assert.equal((await h.req('GET', '/readyz')).status, 200);
      assert.equal(await countAlerts(), 2);
    });
  }
});
