import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** The queues of the service: follow-up work of alert changes, and notification deliveries. */
export const QUEUES = ['alert-events', 'deliveries'] as const;
export type QueueName = (typeof QUEUES)[number];

export interface RetryPolicy {
  /** Retries after the first attempt. */
  limit: number;
  /** Delay before the first retry, doubling with each further one. */
  delaySeconds: number;
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
 * so handlers must be idempotent (ours are: they key their effects on unique constraints).
 */
export interface JobQueue {
  send<T extends object>(db: Kysely<DB>, queue: QueueName, data: T, retry: RetryPolicy): Promise<void>;
  work<T>(queue: QueueName, handler: JobHandler<T>): Promise<void>;
  /** Wakes the local workers now (after a commit that queued work), instead of at their next poll. */
  nudge(queue: QueueName): void;
  /** Stops taking jobs, lets running handlers finish (up to the timeout), and hands back what is left. */
  stop(timeoutMs: number): Promise<void>;
}

/** The delay before retry number `retryCount + 1`: doubling from the policy's first delay. */
export const backoffMs = (retry: RetryPolicy, retryCount: number): number => retry.delaySeconds * 1000 * 2 ** Math.min(retryCount, 16);
