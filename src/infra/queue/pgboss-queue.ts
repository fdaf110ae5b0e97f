import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.ts';
import { runSql } from '../../db/sql-text.ts';
import { errorSummary } from '../../lib/logger.ts';
import { pollLoop, type PollWorker } from './poll-loop.ts';
import { QUEUES, type JobHandler, type JobQueue, type QueueName, type RetryPolicy, type SendOptions, type WorkOptions } from './queue.ts';
import type { QueueTiming } from './sqlite-queue.ts';

interface Worker extends PollWorker {
  /** Jobs done, to complete with the next poll. */
  done: string[];
}

/**
 * PostgreSQL's queue: pg-boss, in its own schema of the same database. Jobs are inserted through the
 * caller's Kysely transaction (pg-boss's `db` option), so they commit or roll back with the change that
 * queued them. A worker that dies leaves its job active until `leaseMs` passes; pg-boss then retries it.
 */
export async function pgBossQueue(deps: { url: string; log: Logger; timing: QueueTiming; supervise?: boolean }): Promise<JobQueue> {
  const { url, log, timing } = deps;
  const { PgBoss } = await import('pg-boss');
  const leaseSeconds = Math.max(1, Math.ceil(timing.leaseMs / 1000));
  // Supervision is what finds jobs whose lease ran out (a dead worker's): check at least twice per lease.
  const superviseSeconds = Math.max(1, Math.min(60, Math.floor(leaseSeconds / 2)));
  // Supervision (maintenance) belongs to the processes that run jobs, not to the API role or a one-shot command.
  const boss = new PgBoss({ connectionString: url, max: 4, schedule: false, supervise: deps.supervise ?? true, superviseIntervalSeconds: superviseSeconds, monitorIntervalSeconds: superviseSeconds });
  boss.on('error', (err: unknown) => log.warn({ error: errorSummary(err) }, 'job queue error'));
  await boss.start();
  for (const name of QUEUES) {
    if (!(await boss.getQueue(name))) await boss.createQueue(name, { expireInSeconds: leaseSeconds });
  }
  const workers = new Map<QueueName, Worker>();
  let stopping = false;

  /** Completes the jobs done since the last call, one statement for all of them. A crash first runs them again (handlers are idempotent). */
  async function completeDone(queue: QueueName, w: Worker): Promise<void> {
    if (w.done.length === 0) return;
    const ids = w.done;
    w.done = [];
    await boss.complete(queue, ids).catch((err: unknown) => {
      w.done.push(...ids);
      throw err;
    });
  }

  /**
   * A poll: completes what finished, then fetches as many jobs as there are free slots in one query (pg-boss's `fetch`,
   * with the group cap counted in the database, so it holds across instances) and runs them.
   */
  async function take(queue: QueueName, w: Worker): Promise<void> {
    await completeDone(queue, w);
    const free = w.concurrency - w.running.size;
    if (free <= 0) return;
    const jobs = await boss.fetch<{ payload: unknown }>(queue, { batchSize: free, ...(w.groupCap !== undefined && { groupConcurrency: w.groupCap }) });
    for (const job of jobs) {
      loop.track(queue, w, job.id, w.handler({ id: job.id, data: job.data.payload, retryCount: job.retryCount })
        .then(() => {
          w.done.push(job.id);
        }, (err: unknown) => boss.fail(queue, job.id, errorSummary(err)).then(() => undefined)));
    }
  }
  const loop = pollLoop({ workers, log, stopping: () => stopping, take });

  return {
    async send(db: Kysely<DB>, queue: QueueName, data: object, retry: RetryPolicy, opts: SendOptions = {}): Promise<void> {
      const inTransaction = {
        executeSql: async (text: string, values?: unknown[]) => ({ rows: await runSql<unknown>(db, text, values ?? []) }),
      };
      await boss.send(queue, { payload: data }, {
        db: inTransaction, retryLimit: retry.limit, retryDelay: retry.delaySeconds, retryBackoff: true,
        priority: opts.priority ?? 0,
        ...(opts.group !== undefined && { group: { id: opts.group } }),
        ...(opts.delayMs !== undefined && opts.delayMs > 0 && { startAfter: new Date(Date.now() + opts.delayMs) }),
      });
    },
    async work<T>(queue: QueueName, handler: JobHandler<T>, opts: WorkOptions = {}): Promise<void> {
      workers.set(queue, { handler: handler as JobHandler<unknown>, groupCap: opts.groupCap, concurrency: opts.concurrency ?? timing.concurrency, running: new Map(), done: [],
        timer: loop.start(queue, timing.pollMs), polling: false, again: false, soon: false });
    },
    nudge(queue: QueueName): void {
      void loop.poll(queue);
    },
    async stop(timeoutMs: number): Promise<void> {
      stopping = true;
      await loop.drain(timeoutMs);
      for (const [queue, w] of workers) {
        const left = [...w.running.keys()];
        // Jobs still running are handed back (failed, so retried) for the next process to take up (handlers are idempotent), as pg-boss's own workers are.
        await Promise.all([completeDone(queue, w), left.length > 0 && boss.fail(queue, left, { message: 'shut down while active' })])
          .catch((err: unknown) => log.warn({ error: errorSummary(err), queue }, 'could not settle jobs at shutdown'));
      }
      await boss.stop({ graceful: false, close: true });
    },
  };
}
