import type { Kysely } from 'kysely';
import type { Store } from './database.ts';
import { retried } from './retry.ts';
import type { DB } from './schema.ts';

/** Runs a unit of work inside a transaction and resolves only after that transaction committed. */
export interface TransactionalWriter<J, R> {
  write(job: J): Promise<R>;
}

export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

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
 * A small write transaction handed to `commitTogether`: its statements, on `trx` only (another connection's
 * statement would wait for this one's commit; on SQLite, forever), and no effect outside the database.
 */
export type GroupedWork<T> = (trx: Kysely<DB>) => Promise<T>;

/** Transactions of one shared commit at most: bounds how long a batch holds the connection (SQLite: the whole process). */
const MAX_GROUPED = 64;

/**
 * Small write transactions of independent callers committed together (delivery claims and their records): the
 * ones that arrive while a commit is under way share the next, so a burst of pages costs a few commits (each an
 * fsync, which on SQLite stops the event loop, and a round trip on PostgreSQL) instead of one or two per page.
 * `finish`, when given, runs last in each transaction with what its works returned (what they have in common,
 * written once: a batch of pages counted in one statement). Each caller is answered only after the commit. When
 * any work fails, or the commit does (a lost connection), the whole transaction is rolled back and each runs
 * again in a transaction of its own, so one failure fails only its own caller: rare enough that savepoints
 * around each (three statements more per work) would cost more than they save; alone, a work that lost a
 * deadlock runs again (db/retry.ts). Work given here must be safe
 * to run again after a commit whose outcome was not known: conditional writes, as a delivery's claim and
 * record are.
 */
export function commitTogether<T>(store: Store, finish?: (trx: Kysely<DB>, values: T[]) => Promise<void>): (work: GroupedWork<T>) => Promise<T> {
  const run = (works: Array<GroupedWork<T>>) => store.background(async (trx) => {
    const values: T[] = [];
    for (const work of works) values.push(await work(trx));
    await finish?.(trx, values);
    return values;
  });
  const writer = groupCommitWriter<GroupedWork<T>, T>(MAX_GROUPED, async (batch) => {
    if (batch.length > 1) {
      try {
        return (await run(batch)).map((value) => ({ ok: true as const, value }));
      } catch {
        // Each alone, below.
      }
    }
    const out: Array<Settled<T>> = [];
    for (const work of batch) {
      // Alone, a deadlock victim runs again: a page's record lost to one would send the page again later.
      out.push(await retried(() => run([work])).then(([value]) => ({ ok: true as const, value: value as T }), (error: unknown) => ({ ok: false as const, error })));
    }
    return out;
  });
  return (work) => writer.write(work);
}

/**
 * `commitTogether` on SQLite, where every work runs on the one connection, one after another, anyway; on
 * PostgreSQL each work in a transaction of its own, side by side on the pool. For long works (a workflow run's many
 * statements): on PostgreSQL they would wait for each other's round trips in one shared transaction.
 */
export function commitTogetherOnSqlite<T>(store: Store): (work: GroupedWork<T>) => Promise<T> {
  return store.dialect === 'sqlite' ? commitTogether<T>(store) : (work) => store.background(work);
}
