import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';
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

/** A top-level transaction that runs again, whole, after a deadlock or serialization failure. */
export function retriedTransaction<R>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<R>): Promise<R> {
  return retried(() => db.transaction().execute(fn));
}
