import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * The queues of the service: follow-up work of alert changes, first attempts of notification deliveries,
 * their retries (a lane of its own, with its own workers, so retries never hold up first attempts), and the
 * steps of escalations and incidents' timers such as a snooze's end (delayed jobs: a restart resumes them), and
 * the updates of sent chat messages when their incident changes (the Acknowledge button gone once it is).
 */
export const QUEUES = ['alert-events', 'deliveries', 'delivery-retries', 'escalations', 'incident-timers', 'message-updates'] as const;
export type QueueName = (typeof QUEUES)[number];

export interface RetryPolicy {
  /** Retries after the first attempt. */
  limit: number;
  /** Delay before the first retry, doubling with each further one. */
  delaySeconds: number;
}

/** How a job is scheduled among the others of its queue. */
export interface SendOptions {
  /** Higher first (default 0); see fairness-fns.ts. */
  priority?: number;
  /** The organization the job works for: a group holds at most the workers' `groupCap` of its queue. */
  group?: string;
  /** Not taken before this many milliseconds from now. */
  delayMs?: number;
}

export interface WorkOptions {
  /** The most jobs of one group that run at once (across processes); unlimited when absent. */
  groupCap?: number;
  /** Jobs of this queue one process runs at once, instead of the queue's default (JOB_CONCURRENCY). */
  concurrency?: number;
}

export interface QueuedJob<T> {
  id: string;
  data: T;
  /** 0 on the first attempt. */
  retryCount: number;
}

export type JobHandler<T> = (job: QueuedJob<T>) => Promise<void>;

/**
 * One job queue interface over two implementations: pg-boss on PostgreSQL, a jobs table on SQLite.
 * `send` takes the caller's transaction, so work is queued if and only if the change that needs it commits.
 * A handler that resolves completes its job; one that throws is retried with exponential backoff until the
 * policy's limit, then the job fails. A job whose worker died is taken up again after its lease expires,
 * so handlers must be idempotent (ours are: they key their effects on unique constraints). Due jobs are taken
 * highest priority first, then oldest first, skipping groups that already run their cap.
 */
export interface JobQueue {
  send<T extends object>(db: Kysely<DB>, queue: QueueName, data: T, retry: RetryPolicy, opts?: SendOptions): Promise<void>;
  work<T>(queue: QueueName, handler: JobHandler<T>, opts?: WorkOptions): Promise<void>;
  /** Wakes the local workers now (after a commit that queued work), instead of at their next poll. */
  nudge(queue: QueueName): void;
  /** Stops taking jobs, lets running handlers finish (up to the timeout), and hands back what is left. */
  stop(timeoutMs: number): Promise<void>;
}

/** The delay before retry number `retryCount + 1`: doubling from the policy's first delay. */
export const backoffMs = (retry: RetryPolicy, retryCount: number): number => retry.delaySeconds * 1000 * 2 ** Math.min(retryCount, 16);
