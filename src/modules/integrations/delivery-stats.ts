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

  async function flush(): Promise<void> {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await store.db.transaction().execute(async (trx) => {
        for (const [id, d] of batch) await repo.addCounts(trx, id, d);
      });
    } catch (err) {
      log.warn({ error: errorSummary(err) }, 'integration counters not saved; retrying with the next flush');
      for (const [id, d] of batch) merge(entry(id), d);
    }
  }

  const timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
  timer.unref();

  return {
    accepted: (id: string, at: number) => merge(entry(id), { accepted: 1, rejected: 0, lastAlertAt: at, lastRejectedAt: null }),
    rejected: (id: string, at: number) => merge(entry(id), { accepted: 0, rejected: 1, lastAlertAt: null, lastRejectedAt: at }),
    /** Counts not yet flushed, so this instance's answers include its own latest payloads. */
    unflushed: (id: string): CountDelta | undefined => pending.get(id),
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
