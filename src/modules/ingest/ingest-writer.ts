import type { DatabaseSync } from 'node:sqlite';
import type { SqliteConnection } from '../../db/database.ts';

/** Runs a unit of ingest work inside a transaction and resolves only after that transaction committed. */
export interface TransactionalWriter<J, R> {
  write(job: J): Promise<R>;
}

export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** PostgreSQL's deadlock_detected and serialization_failure: the statement was rolled back whole and may run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 3;

/** Runs `once` again after a deadlock or serialization failure, which rolled all of its work back. */
export async function retried<R>(once: () => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
    }
  }
}

interface Pending<J, R> {
  job: J;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: requests that arrive while a batch is being written wait for the next one, and each batch is
 * written by one `runBatch` (one transaction, or one statement), so one commit — one fsync, one round trip —
 * answers many requests. `runBatch` settles each job on its own; every caller is answered after the commit.
 */
export function groupCommitWriter<J, R>(maxBatch: number, runBatch: (jobs: J[]) => Promise<Array<Settled<R>>>): TransactionalWriter<J, R> {
  let queue: Array<Pending<J, R>> = [];
  let draining = false;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      let outcomes: Array<Settled<R>>;
      try {
        outcomes = await runBatch(batch.map((p) => p.job));
      } catch (error) {
        for (const p of batch) p.reject(error);
        continue;
      }
      batch.forEach((p, i) => {
        const o = outcomes[i] as Settled<R>;
        if (o.ok) p.resolve(o.value);
        else p.reject(o.error);
      });
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

/**
 * SQLite: a batch is one transaction run synchronously on the connection, holding it so that no other
 * statement interleaves. A job of several statements runs under a savepoint, so that one failing is rolled
 * back alone and only its caller sees the error; a single statement is atomic by itself.
 */
export function sqliteBatch<J, R>(conn: SqliteConnection, apply: (job: J) => R, statements: (job: J) => number) {
  return (jobs: J[]): Promise<Array<Settled<R>>> => conn.exclusive((raw: DatabaseSync) => {
    const out: Array<Settled<R>> = [];
    raw.exec('begin immediate');
    try {
      for (const job of jobs) {
        const guarded = statements(job) > 1;
        if (guarded) raw.exec('savepoint job');
        try {
          out.push({ ok: true, value: apply(job) });
          if (guarded) raw.exec('release savepoint job');
        } catch (error) {
          if (guarded) raw.exec('rollback to savepoint job; release savepoint job');
          out.push({ ok: false, error });
        }
        // Some errors (I/O, a full disk) make SQLite roll the whole transaction back: the batch then failed whole.
        if (!raw.isTransaction) throw new Error('SQLite rolled the ingest transaction back');
      }
      raw.exec('commit');
    } catch (error) {
      if (raw.isTransaction) raw.exec('rollback');
      throw error;
    }
    return out;
  });
}
