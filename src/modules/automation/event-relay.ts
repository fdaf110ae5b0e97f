import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import { fairShare, nextPriority } from '../../infra/queue/fairness-fns.ts';
import type { JobQueue, RetryPolicy } from '../../infra/queue/queue.ts';
import { errorSummary } from '../../lib/logger.ts';
import { yieldToLoop } from '../../lib/yield.ts';

/** What a job of the `alert-events` queue carries: one row of the outbox. */
export interface AlertEvent {
  eventId: string;
  orgId: string;
  alertId: string;
  type: string;
  at: number;
}

/** Workflow runs are retried a few times (a database blip), quickly: someone may be waiting for a page. */
export const EVENT_RETRY: RetryPolicy = { limit: 5, delaySeconds: 1 };
const BATCH = 200;
const PER_ORG = 50;
/**
 * Woken, the relay waits this long before its first batch, so the events of the next few ingest commits go with it:
 * one batch, one poll of `alert-events` and one shared commit of workflow runs instead of one each. At 300 alerts a
 * second it cut the server's CPU per alert by a fifth (docs/benchmarks.md, "Alert to page: latency and the knee"),
 * for 20 ms more before an alert's workflows run.
 */
const GATHER_MS = 20;

/**
 * Moves alert events from the outbox (written by the alert writer with the alert change) to the job queue, in
 * one transaction per batch: each event is queued exactly once, and never lost on a crash. Polls, and runs at
 * once when the alert writer wakes it after a commit.
 */
export function eventRelay(deps: { store: Store; queue: JobQueue; log: Logger; pollMs: number }) {
  const { store, queue, log } = deps;
  const share = fairShare();
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  /** Shutting down: the batch under way finishes, the rest stays in the outbox for the next process. */
  let stopping = false;

  async function moveBatch(): Promise<number> {
    // A cheap look first: an empty outbox costs no write transaction (on SQLite that would take the write lock).
    if (!(await store.db.selectFrom('alert_events').select('id').limit(1).executeTakeFirst())) return 0;
    return store.background(async (trx) => {
      // At most PER_ORG events of one organization per batch: another's event is not relayed after a burst of thousands.
      const fair = trx.selectFrom((eb) => eb.selectFrom('alert_events')
        .select(['id', sql<number>`row_number() over (partition by org_id order by id)`.as('rank')]).as('ranked'))
        .select('ranked.id').where('ranked.rank', '<=', PER_ORG);
      let q = trx.selectFrom('alert_events').selectAll().where('id', 'in', fair).orderBy('id').limit(BATCH);
      // Instances relay side by side: each takes rows the others have not locked.
      if (store.dialect === 'postgres') q = q.forUpdate().skipLocked();
      const rows = await q.execute();
      for (const r of rows) {
        const event: AlertEvent = { eventId: String(r.id), orgId: r.org_id, alertId: r.alert_id, type: r.type, at: Number(r.created_at) };
        // One organization's burst of events does not hold up another's: they are taken by fair priority.
        await queue.send(trx, 'alert-events', event, EVENT_RETRY, { priority: nextPriority(share, [r.org_id], Date.now()) });
      }
      if (rows.length > 0) await trx.deleteFrom('alert_events').where('id', 'in', rows.map((r) => r.id)).execute();
      return rows.length;
    });
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      try {
        let moved: number;
        do {
          moved = await moveBatch();
          if (moved > 0) queue.nudge('alert-events');
          // One batch per turn of the event loop: requests are answered between batches.
          if (moved > 0) await yieldToLoop();
        } while (moved > 0 && !stopping);
      } catch (err) {
        log.warn({ error: errorSummary(err) }, 'alert event relay failed; retrying at the next poll');
      }
    } while (again && !stopping);
    running = null;
  }

  /** Runs the relay GATHER_MS from now, or once more right after the current pass. */
  function nudge(): void {
    if (running) {
      again = true;
      return;
    }
    running = sleep(GATHER_MS).then(drain);
  }

  return {
    nudge,
    start(): void {
      timer = setInterval(nudge, deps.pollMs);
      timer.unref();
      nudge();
    },
    async stop(): Promise<void> {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
export type EventRelay = ReturnType<typeof eventRelay>;
