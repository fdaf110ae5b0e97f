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
