import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Store } from '../../src/db/database.ts';
import { openMigratedStore } from '../../src/db/migrations/index.ts';
import { pgBossQueue } from '../../src/infra/queue/pgboss-queue.ts';
import type { JobQueue, QueuedJob } from '../../src/infra/queue/queue.ts';
import { sqliteQueue } from '../../src/infra/queue/sqlite-queue.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';

const log = pino({ level: 'silent' });
const NO_DELAY = { limit: 3, delaySeconds: 1 };

/** Resolves once `n` values have been pushed, or rejects after `ms`. */
function collector<T>() {
  const seen: T[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  return {
    seen,
    push(v: T) {
      seen.push(v);
      for (const w of waiters) if (seen.length >= w.n) w.resolve();
    },
    until(n: number, ms = 15_000): Promise<void> {
      if (seen.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`only ${seen.length} of ${n} within ${ms} ms: ${JSON.stringify(seen)}`)), ms);
        waiters.push({ n, resolve: () => { clearTimeout(t); resolve(); } });
      });
    },
  };
}

eachStore('job queue', { together: true }, (kind) => {
  let test: TestStore;
  let store: Store;
  const open: JobQueue[] = [];
  const makeQueue = async (leaseMs = 60_000, concurrency = 2): Promise<JobQueue> => {
    const timing = { pollMs: 50, leaseMs, concurrency };
    const q = kind === 'postgres' && test.config.kind === 'postgres' ? await pgBossQueue({ url: test.config.url, log, timing }) : sqliteQueue({ store, log, timing });
    open.push(q);
    return q;
  };

  before(async () => {
    test = await createTestStore(kind);
    store = (await openMigratedStore(test.config)).store;
  });
  after(async () => {
    for (const q of open) await q.stop(1000);
    await store.close();
    await test.drop();
  });

  it('runs a job queued in a transaction that commits, and never one whose transaction rolled back', async () => {
    const q = await makeQueue();
    const got = collector<string>();
    await q.work<{ v: string }>('alert-events', async (job) => got.push(job.data.v));
    await store.db.transaction().execute((trx) => q.send(trx, 'alert-events', { v: 'committed' }, NO_DELAY));
    await assert.rejects(store.db.transaction().execute(async (trx) => {
      await q.send(trx, 'alert-events', { v: 'rolled back' }, NO_DELAY);
      throw new Error('abort');
    }));
    q.nudge('alert-events');
    await got.until(1);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(got.seen, ['committed']);
    await q.stop(1000);
  });

  it('retries a failing job with backoff until it succeeds, then runs it no more', async () => {
    const q = await makeQueue();
    const attempts = collector<{ retryCount: number; at: number }>();
    await q.work<{ v: string }>('deliveries', async (job: QueuedJob<{ v: string }>) => {
      attempts.push({ retryCount: job.retryCount, at: Date.now() });
      if (job.retryCount < 2) throw new Error('target down');
    });
    await q.send(store.db, 'deliveries', { v: 'x' }, NO_DELAY);
    q.nudge('deliveries');
    await attempts.until(3, 20_000);
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(attempts.seen.map((a) => a.retryCount), [0, 1, 2]);
    // Exponential: the second wait is longer than the first (1 s, then about 2 s).
    const [a, b, c] = attempts.seen.map((x) => x.at) as [number, number, number];
    assert.ok(b - a >= 900, `first retry after ${b - a} ms`);
    assert.ok(c - b >= 1500, `second retry after ${c - b} ms`);
    await q.stop(1000);
  });

  it('a queue sized on its own (deliveries: DELIVERY_CONCURRENCY) runs that many jobs at once, not the default', async () => {
    const q = await makeQueue(60_000, 2);
    let running = 0;
    let most = 0;
    const done = collector<number>();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    await q.work<{ i: number }>('deliveries', async (job) => {
      most = Math.max(most, ++running);
      if (most >= 6) release();
      await gate;
      running--;
      done.push(job.data.i);
    }, { concurrency: 6 });
    for (let i = 0; i < 8; i++) await q.send(store.db, 'deliveries', { i }, NO_DELAY);
    q.nudge('deliveries');
    await done.until(8, 20_000);
    assert.equal(most, 6, 'six at once: more than the default 2, never more than its own 6');
    assert.deepEqual([...done.seen].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7]);
    await q.stop(1000);
  });

  it('a group at its cap waits while the jobs of no group and of groups before, between and after the capped ones run at once', async () => {
    const q = await makeQueue(60_000, 2);
    const running = new Map<string, number>();
    let most = 0;
    const started = collector<string>();
    const done = collector<string>();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    await q.work<{ group: string; i: number }>('deliveries', async (job) => {
      const n = (running.get(job.data.group) ?? 0) + 1;
      running.set(job.data.group, n);
      most = Math.max(most, n);
      started.push(`${job.data.group}${job.data.i}`);
      if (job.data.group === 'b' || job.data.group === 'x') await gate;
      running.set(job.data.group, (running.get(job.data.group) ?? 1) - 1);
      done.push(`${job.data.group}${job.data.i}`);
    }, { concurrency: 8, groupCap: 2 });
    for (let i = 0; i < 4; i++) {
      await q.send(store.db, 'deliveries', { group: 'b', i }, NO_DELAY, { group: 'b' });
      await q.send(store.db, 'deliveries', { group: 'x', i }, NO_DELAY, { group: 'x' });
    }
    q.nudge('deliveries');
    await started.until(4);
    // b and x each run their cap of 2, with two jobs each left due; the jobs of other groups come after them, one by one.
    for (const [n, group] of ['m', 'a', 'z', '-'].entries()) {
      await q.send(store.db, 'deliveries', { group, i: 0 }, NO_DELAY, group === '-' ? {} : { group });
      q.nudge('deliveries');
      await done.until(n + 1);
    }
    assert.deepEqual([...done.seen].sort(), ['-0', 'a0', 'm0', 'z0'], 'the other groups ran while b and x held their cap');
    // pg-boss counts the cap in each fetch, and its workers fetch at once: a group can get a job over it there
    // (docs/operating.md). SQLite's claims take the write lock one at a time, and its cap is exact.
    if (kind === 'sqlite') assert.equal(started.seen.filter((s) => s.startsWith('b') || s.startsWith('x')).length, 4, 'b and x still run 2 each');
    release();
    await done.until(12, 20_000);
    if (kind === 'sqlite') assert.equal(most, 2, 'never more than 2 of one group at once');
    await q.stop(1000);
  });

  it('takes up the job of a worker that died mid-job once its lease runs out', async () => {
    // One slot, taken by a handler that never finishes: as if its process had been killed while running the job.
    const first = await makeQueue(1000, 1);
    const started = collector<string>();
    await first.work<{ v: string }>('alert-events', async (job) => {
      started.push(`first:${job.data.v}`);
      await new Promise(() => undefined);
    });
    await first.send(store.db, 'alert-events', { v: 'orphan' }, NO_DELAY);
    first.nudge('alert-events');
    await started.until(1);
    // pg-boss abandons a handler whose job expired and would fetch again: close it, as a killed process would be.
    if (kind === 'postgres') await first.stop(0);

    const second = await makeQueue(1000);
    const done = collector<string>();
    await second.work<{ v: string }>('alert-events', async (job) => done.push(`second:${job.data.v}:${job.retryCount}`));
    await done.until(1, 20_000);
    assert.match(done.seen[0] as string, /^second:orphan:/);
  });
});
