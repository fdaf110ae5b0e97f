import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { IntegrationRow } from '../../src/modules/integrations/integrations-repo.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore, type StoreKind } from '../support/stores.ts';

/**
 * A 2xx only after commit: a request whose alert the store refuses inside the ingest transaction answers a 5xx
 * in the error envelope and leaves nothing behind, while the requests written with it still commit. The store
 * itself refuses (a trigger the test adds to its own database), not a stand-in for it: on PostgreSQL a deferred
 * constraint trigger that fails the COMMIT, on SQLite a trigger that aborts the statement.
 */

const POISON = 'Poison: refused at commit';

/** Adds the refusing trigger, and on PostgreSQL a sequence counting every row the store was asked to insert. */
async function poisonStore(kind: StoreKind, url: string): Promise<{ attempts: () => Promise<number>; close: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const db = new DatabaseSync(new URL(url).pathname);
    db.exec(`create trigger test_poison before insert on alerts when new.title = '${POISON}'
      begin select raise(abort, 'the test refuses this alert'); end`);
    return { attempts: async () => Number.NaN, close: async () => db.close() };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`
    create sequence test_alert_attempts;
    create function test_count_attempt() returns trigger language plpgsql as
      $$ begin perform nextval('test_alert_attempts'); return new; end $$;
    create trigger test_count_attempt before insert on alerts for each row execute function test_count_attempt();
    create function test_poison() returns trigger language plpgsql as
      $$ begin raise exception 'the test refuses this commit'; end $$;
    create constraint trigger test_poison after insert on alerts deferrable initially deferred
      for each row when (new.title = '${POISON}') execute function test_poison();`);
  return {
    // last_value is 1 with is_called false before the first nextval.
    attempts: async () => {
      const r = await client.query<{ last_value: string; is_called: boolean }>('select last_value, is_called from test_alert_attempts');
      const row = r.rows[0] as { last_value: string; is_called: boolean };
      return row.is_called ? Number(row.last_value) : 0;
    },
    close: () => client.end(),
  };
}

eachStore('ingest when the store refuses a commit', { together: true }, (kind) => {
  let h: Harness;
  let store: Awaited<ReturnType<typeof poisonStore>>;
  let path: string;
  let token: string;
  before(async () => {
    h = await startHarness(kind);
    ({ path, token } = await h.integration());
    store = await poisonStore(kind, h.store.url);
  });
  after(async () => {
    await store?.close();
    await h?.close();
  });

  const titles = async () => ((await h.ok('GET', '/api/v1/alerts?limit=100')).data as Array<{ title: string }>).map((a) => a.title).sort();

  it('the refused request answers 5xx in the envelope and stores nothing; the requests beside it answer 200 and are stored', async () => {
    const good = ['Good one', 'Good two', 'Good three'];
    const sent = await Promise.all([...good, POISON].map((title) => h.ingest(path, { title, severity: 'high' })));
    const poisoned = sent[3]!;
    assert.ok(poisoned.status >= 500, `the refused request answered ${poisoned.status}: ${poisoned.raw}`);
    assert.deepEqual(poisoned.body, { error: 'Internal server error', code: 'INTERNAL_ERROR', details: null });
    for (const r of sent.slice(0, 3)) assert.equal(r.status, 200, r.raw);
    assert.deepEqual(await titles(), [...good].sort());
    // Nothing of the refused alert reached the totals either.
    assert.equal((await h.ok('GET', '/api/v1/alerts?status=firing')).meta.total, 3);
    // The writer is not stuck: the next request commits.
    assert.equal((await h.ingest(path, { title: 'After the refusal', severity: 'low' })).status, 200);
  });

  if (kind === 'postgres') {
    it('a group-commit batch whose commit fails runs again request by request: only the refused request fails', async () => {
      const found = await h.c.ingestCache.integration(token);
      assert.ok(found);
      const integration = found.row as IntegrationRow;
      // Warm the organization's configuration, so that every call below reaches the writer in this same turn
      // of the event loop and the group commit takes them as one batch.
      await h.c.ingest.ingest(integration, found.version, { title: 'Warm-up', severity: 'low' });
      const before = await store.attempts();
      const good = ['Batched one', 'Batched two', 'Batched three', 'Batched four'];
      const settled = await Promise.allSettled([...good, POISON].map((title) => h.c.ingest.ingest(integration, found.version, { title, severity: 'high' })));
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
      for (const s of settled.slice(0, 4)) assert.equal((s as PromiseFulfilledResult<Array<{ action: string }>>).value[0]!.action, 'created');
      // Five rows in the one batch statement, whose commit failed; then each request alone: five again.
      assert.equal(await store.attempts() - before, 10, 'the batch ran once whole and once request by request');
      const stored = await titles();
      for (const t of good) assert.ok(stored.includes(t), `${t} is stored`);
      assert.ok(!stored.includes(POISON));
    });
  }
});
