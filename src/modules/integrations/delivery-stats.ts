import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import { errorSummary } from '../../lib/logger.ts';
import type { CountDelta, IntegrationsRepo } from './integrations-repo.ts';

const FLUSH_EVERY_MS = 1000;

/**
 * Per-integration counts of accepted and rejected payloads. Counting in memory and adding the deltas once
 * a second keeps ingest free of a hot counter row that every request of one sender would update; the
 * price is that a crash loses at most a second of counts (the alerts themselves are never at stake).
 */
export function deliveryStats(deps: { store: Store; repo: IntegrationsRepo; log: Logger }) {
  const { store, repo, log } = deps;
  let pending = new Map<string, CountDelta>();

  const entry = (id: string): CountDelta => {
    let d = pending.get(id);
    if (!d) pending.set(id, (d = { accepted: 0, rejected: 0, lastAlertAt: null, lastRejectedAt: null }));
    return d;
  };

  // A read adds the unflushed counts to the stored ones, so it must not overlap a flush: the counts being
  // flushed would be in neither (PostgreSQL reads on another connection while the flush commits).
  let flushing: Promise<void> | null = null;
  let readers = 0;
  let readersGone: Array<() => void> = [];

  async function write(batch: Map<string, CountDelta>): Promise<void> {
    try {
      await store.db.transaction().execute(async (trx) => {
        for (const [id, d] of batch) await repo.addCounts(trx, id, d);
      });
    } catch (err) {
      log.warn({ error: errorSummary(err) }, 'integration counters not saved; retrying with the next flush');
      for (const [id, d] of batch) merge(entry(id), d);
    }
  }

  async function flush(): Promise<void> {
    while (flushing) await flushing;
    while (readers > 0) await new Promise<void>((resolve) => readersGone.push(resolve));
    if (flushing || pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    flushing = write(batch).finally(() => {
      flushing = null;
    });
    await flushing;
  }

  async function consistent<T>(read: () => Promise<T>): Promise<T> {
    while (flushing) await flushing;
    readers++;
    try {
      return await read();
    } finally {
      readers--;
      if (readers === 0) for (const wake of readersGone.splice(0)) wake();
    }
  }

  const timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
  timer.unref();

  return {
    accepted: (id: string, at: number) => merge(entry(id), { accepted: 1, rejected: 0, lastAlertAt: at, lastRejectedAt: null }),
    rejected: (id: string, at: number) => merge(entry(id), { accepted: 0, rejected: 1, lastAlertAt: null, lastRejectedAt: at }),
    /** Counts not yet flushed, so this instance's answers include its own latest payloads; read them inside `consistent`. */
    unflushed: (id: string): CountDelta | undefined => pending.get(id),
    /** Runs a read of stored counts that no flush overlaps. */
    consistent,
    flush,
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}
export type DeliveryStats = ReturnType<typeof deliveryStats>;

function merge(into: CountDelta, d: CountDelta): void {
  into.accepted += d.accepted;
  into.rejected += d.rejected;
  if (d.lastAlertAt !== null) into.lastAlertAt = Math.max(into.lastAlertAt ?? d.lastAlertAt, d.lastAlertAt);
  if (d.lastRejectedAt !== null) into.lastRejectedAt = Math.max(into.lastRejectedAt ?? d.lastRejectedAt, d.lastRejectedAt);
}
