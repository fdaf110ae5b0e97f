import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.ts';
import { runSql } from '../../db/sql-text.ts';
import { errorSummary } from '../../lib/logger.ts';
import { QUEUES, type JobHandler, type JobQueue, type QueueName, type RetryPolicy, type SendOptions, type WorkOptions } from './queue.ts';
import type { QueueTiming } from './sqlite-queue.ts';

/** How often a worker beyond JOB_CONCURRENCY looks for jobs when idle. */
const EXTRA_WORKER_POLL_SECONDS = 5;

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
  const workerIds = new Map<QueueName, string[]>();

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
      // One pg-boss worker per slot, so that a nudge wakes every one of them (notifyWorker wakes one worker, and
      // work() with localConcurrency returns only the first one's id). A worker that ran a job looks again at once
      // instead of sleeping out its polling interval, so a backlog drains at full speed; a fetch that finds
      // nothing sends it back to polling.
      // Workers beyond JOB_CONCURRENCY (a queue sized larger, such as deliveries) poll less often when idle: nudges
      // and their own finished jobs wake them at once, and idle polling costs a fetch query per worker and interval.
      const ids: string[] = [];
      for (let i = 0; i < (opts.concurrency ?? timing.concurrency); i++) {
        let id = '';
        const polling = Math.max(i < timing.concurrency ? 0.5 : EXTRA_WORKER_POLL_SECONDS, timing.pollMs / 1000);
        // groupConcurrency is counted in the database, so the cap holds across instances.
        id = await boss.work<{ payload: T }>(queue, {
          batchSize: 1, pollingIntervalSeconds: polling,
          ...(opts.groupCap !== undefined && { groupConcurrency: opts.groupCap }),
        },
          async ([job]) => {
            if (!job) return;
            try {
              await handler({ id: job.id, data: job.data.payload, retryCount: job.retryCount });
            } finally {
              boss.notifyWorker(id);
            }
          });
        ids.push(id);
      }
      workerIds.set(queue, ids);
    },
    nudge(queue: QueueName): void {
      for (const id of workerIds.get(queue) ?? []) boss.notifyWorker(id);
    },
    stop: (timeoutMs: number) => boss.stop({ graceful: true, timeout: timeoutMs, close: true }),
  };
}
