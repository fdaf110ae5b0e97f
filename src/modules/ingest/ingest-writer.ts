import { sql, type Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';

/** Runs a unit of ingest work inside a transaction and resolves only after that transaction committed. */
export interface TransactionalWriter<J, R> {
  write(job: J): Promise<R>;
}

/**
 * PostgreSQL: one transaction per request; the pool runs them concurrently and the server merges their
 * WAL flushes. A job of a single statement runs autocommitted: it is atomic by itself, and sparing the
 * BEGIN and COMMIT round trips shortens the time a deduplicated alert's row stays locked.
 */
export function perRequestWriter<J, R>(store: Store, apply: (db: Kysely<DB>, job: J) => Promise<R>, singleStatement: (job: J) => boolean): TransactionalWriter<J, R> {
  const once = (job: J) => (singleStatement(job) ? apply(store.db, job) : store.db.transaction().execute((trx) => apply(trx, job)));
  return {
    async write(job) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(job);
        } catch (err) {
          // A deadlock or serialization failure rolled the whole job back; running it again is safe.
          if (attempt >= MAX_ATTEMPTS || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
        }
      }
    },
  };
}

/** PostgreSQL's deadlock_detected and serialization_failure. */
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 3;

interface Pending<J, R> {
  job: J;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/**
 * SQLite group commit: SQLite has one writer, and its cost per request is the commit's fsync. Requests
 * that arrive while a batch is being written wait for the next one, and each batch is one transaction,
 * so one fsync makes many requests durable. Each job runs under its own savepoint: a job that fails
 * is rolled back alone and only its caller sees the error. Every caller is answered after COMMIT.
 */
export function groupCommitWriter<J, R>(store: Store, apply: (db: Kysely<DB>, job: J) => Promise<R>, maxBatch: number): TransactionalWriter<J, R> {
  let queue: Array<Pending<J, R>> = [];
  let draining = false;

  async function runBatch(batch: Array<Pending<J, R>>): Promise<void> {
    const outcomes: Array<{ ok: true; value: R } | { ok: false; error: unknown }> = [];
    try {
      await store.db.transaction().execute(async (trx) => {
        for (const { job } of batch) {
          await sql`savepoint job`.execute(trx);
          try {
            outcomes.push({ ok: true, value: await apply(trx, job) });
            await sql`release savepoint job`.execute(trx);
          } catch (error) {
            await sql`rollback to savepoint job`.execute(trx);
            await sql`release savepoint job`.execute(trx);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i] as (typeof outcomes)[number];
      if (o.ok) p.resolve(o.value);
      else p.reject(o.error);
    });
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      await runBatch(batch);
    }
    draining = false;
  }

  return {
    write(job) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ job, resolve, reject });
        if (!draining) {
          draining = true;
          // Let the requests already read from the sockets join this batch.
          setImmediate(() => void drain());
        }
      });
    },
  };
}
