import type { Logger } from 'pino';
import { errorSummary } from '../../lib/logger.ts';
import type { JobHandler, QueueName } from './queue.ts';

/**
 * How long the poll after a job finishes waits for others to finish: their slots are then filled by one poll (on
 * SQLite one transaction, one commit: an fsync that stops the event loop; on PostgreSQL one fetch), not one each. At
 * 300 alerts a second paged by email and webhook, 5 ms took ~10 % more pages a second on SQLite than the next turn of
 * the loop (docs/benchmarks.md, "Alert to page: latency and the knee").
 */
const POLL_COALESCE_MS = 5;

/** A queue's worker in this process, as both queues keep it. */
export interface PollWorker {
  handler: JobHandler<unknown>;
  groupCap: number | undefined;
  concurrency: number;
  /** Jobs being run, by id. */
  running: Map<string, Promise<void>>;
  timer: NodeJS.Timeout;
  polling: boolean;
  /** A poll was asked for while one ran (a job finished, a nudge): it runs again at once after. */
  again: boolean;
  /** A poll is due shortly (after POLL_COALESCE_MS). */
  soon: boolean;
}

/**
 * The loop both job queues run (sqlite-queue.ts, pgboss-queue.ts): one poll at a time per queue, a poll asked for
 * meanwhile run right after it (the slot a job just freed would otherwise wait for the timer), a poll shortly after
 * each job finishes, and the jobs under way. `take` is the queue's own poll: settle what finished, take jobs for the
 * free slots, and `track` each.
 */
export function pollLoop<W extends PollWorker>(deps: {
  workers: Map<QueueName, W>;
  log: Logger;
  stopping: () => boolean;
  take: (queue: QueueName, w: W) => Promise<void>;
}) {
  const { workers, log } = deps;

  async function poll(queue: QueueName): Promise<void> {
    const w = workers.get(queue);
    if (!w || deps.stopping()) return;
    if (w.polling) {
      w.again = true;
      return;
    }
    w.polling = true;
    w.again = false;
    try {
      await deps.take(queue, w);
    } catch (err) {
      log.warn({ error: errorSummary(err), queue }, 'job poll failed');
    } finally {
      w.polling = false;
      if (w.again) void poll(queue);
    }
  }

  /** A poll POLL_COALESCE_MS from now, once however many ask. */
  function pollSoon(queue: QueueName, w: W): void {
    if (w.soon) return;
    w.soon = true;
    setTimeout(() => {
      w.soon = false;
      void poll(queue);
    }, POLL_COALESCE_MS);
  }

  return {
    poll,
    /** A job taken: `settled` runs and settles it; when it is over, its slot is free (`after`, then a poll shortly). */
    track(queue: QueueName, w: W, id: string, settled: Promise<void>, after?: () => void): void {
      w.running.set(id, settled
        .catch((err: unknown) => log.error({ error: errorSummary(err), queue, job: id }, 'could not settle job'))
        .finally(() => {
          w.running.delete(id);
          after?.();
          pollSoon(queue, w);
        }));
    },
    /** Starts polling a queue (once now, then every `pollMs`); returns the worker's timer. */
    start(queue: QueueName, pollMs: number): NodeJS.Timeout {
      const timer = setInterval(() => void poll(queue), pollMs);
      timer.unref();
      setImmediate(() => void poll(queue));
      return timer;
    },
    /** Stops the timers and waits for the jobs under way, at most `timeoutMs` (those still running stay in `running`). */
    async drain(timeoutMs: number): Promise<void> {
      for (const w of workers.values()) clearInterval(w.timer);
      const running = [...workers.values()].flatMap((w) => [...w.running.values()]);
      await Promise.race([Promise.allSettled(running), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    },
  };
}
