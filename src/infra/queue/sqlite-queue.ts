import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { yieldToLoop } from '../../lib/yield.ts';
import { errorSummary } from '../../lib/logger.ts';
import { backoffMs, type JobHandler, type JobQueue, type QueueName, type RetryPolicy, type SendOptions, type WorkOptions } from './queue.ts';

export interface QueueTiming {
  /** How often an idle worker looks for due jobs. */
  pollMs: number;
  /** How long a taken job belongs to its worker; after that, another may take it (its worker is presumed dead). */
  leaseMs: number;
  /** Jobs one worker runs at once. */
  concurrency: number;
}

interface Worker {
  handler: JobHandler<unknown>;
  groupCap: number | undefined;
  concurrency: number;
  /** Jobs being run, by id. */
  running: Map<string, Promise<void>>;
  timer: NodeJS.Timeout;
  polling: boolean;
  /** A poll was asked for while one ran (a job finished, a nudge): it runs again at once after. */
  again: boolean;
  /** A poll is due on the next turn (pollSoon). */
  soon: boolean;
  /** When the last poll left due jobs it could not take (their groups ran their cap); 0 when it did not. */
  cappedAt: number;
  /** A nudge's poll, held back to CAPPED_NUDGE_MS after `cappedAt`. */
  held: NodeJS.Timeout | null;
  /** Jobs finished since the last poll: each gave its group a slot back. */
  finished: number;
}

/**
 * How long after a poll that left due jobs it could not take (their groups ran their cap) a nudge waits to poll
 * again: such a poll walks every due job of those groups to find nothing, and a nudge comes after every workflow
 * run. A job that finishes frees its group's slot and still polls at once; within the hold, that poll (or the
 * timer's) takes only as many jobs as slots came back meanwhile: each such claim finds its group's next job first,
 * where one more would walk the capped groups' backlog to find nothing, once per job finished. The first poll after
 * the hold claims as usual, so a job of another group (queued, or due after a delay) waits at most
 * CAPPED_NUDGE_MS longer.
 */
const CAPPED_NUDGE_MS = 50;

/**
 * SQLite's queue: rows of the `jobs` table in the same file as the data, so a job is queued in the very
 * transaction that needs it. Taking a job is one UPDATE … RETURNING, atomic even when two processes share
 * the file. Time here is the machine's clock: leases and backoff are about real elapsed time.
 */
export function sqliteQueue(deps: { store: Store; log: Logger; timing: QueueTiming }): JobQueue {
  const { store, log, timing } = deps;
  const workers = new Map<QueueName, Worker>();
  let stopping = false;

  /**
   * Jobs done but not yet deleted: each delete rides on the next claim's transaction, so finishing a job
   * costs no commit (an fsync) of its own. A crash in between runs those jobs again; handlers are idempotent.
   */
  let done: string[] = [];

  /**
   * Takes up to `max` due jobs, one statement each (atomic even across processes): the highest priority
   * first, then the oldest, and never a job of a group that already runs `cap` jobs of this queue. The queued
   * and the lease-expired candidates are looked up apart, each the first row of the index in claim order
   * (jobs_claim_groups): as one OR they were every due job sorted, each claim slower as a backlog grew.
   */
  async function claim(db: Kysely<DB>, queue: QueueName, max: number, cap: number | undefined) {
    const now = Date.now();
    const first = (state: 'queued' | 'active') => db.selectFrom('jobs').select(['id', 'priority', 'run_at']).where('queue', '=', queue)
      .where('state', '=', state)
      // An active job is a candidate only once its lease ran out: its worker died mid-job.
      .where(state === 'queued' ? 'run_at' : 'locked_until', state === 'queued' ? '<=' : '<', now)
      .$if(cap !== undefined, (q) => q.where((eb) => eb.or([
        eb('group_id', 'is', null),
        eb('group_id', 'not in', eb.selectFrom('jobs').select('group_id').where('queue', '=', queue).where('state', '=', 'active')
          .where('locked_until', '>=', now).where('group_id', 'is not', null).groupBy('group_id').having((h) => h.fn.countAll(), '>=', cap as number)),
      ])))
      .orderBy('priority', 'desc').orderBy('run_at').limit(1);
    const due = db.selectFrom((eb) => eb.selectFrom(first('active').as('expired')).selectAll()
      .unionAll(eb.selectFrom(first('queued').as('queued')).selectAll()).as('candidates'))
      .select('id').orderBy('priority', 'desc').orderBy('run_at').limit(1);
    const taken = [];
    for (let i = 0; i < max; i++) {
      const row = await db.updateTable('jobs')
        .set((eb) => ({ state: 'active', locked_until: now + timing.leaseMs, attempts: eb('attempts', '+', 1), updated_at: now }))
        .where('id', '=', due)
        .returningAll().executeTakeFirst();
      if (!row) break;
      taken.push(row);
    }
    return taken;
  }

  async function settle(id: string, attempts: number, maxAttempts: number, data: string, err: unknown): Promise<void> {
    const now = Date.now();
    if (err === undefined) {
      done.push(id);
      return;
    }
    const policy = store.readJson<{ retry: RetryPolicy }>(data).retry;
    const failed = attempts >= maxAttempts;
    await store.db.updateTable('jobs').set({
      state: failed ? 'failed' : 'queued',
      run_at: failed ? now : now + backoffMs(policy, attempts - 1),
      locked_until: null,
      last_error: (errorSummary(err).message ?? String(err)).slice(0, 1000),
      updated_at: now,
    }).where('id', '=', id).execute();
  }

  /**
   * A poll on the next turn of the event loop, once however many ask: jobs that finish together (their records
   * share a commit) free their slots for one claim, one commit, instead of one each.
   */
  function pollSoon(queue: QueueName, w: Worker): void {
    if (w.soon) return;
    w.soon = true;
    setImmediate(() => {
      w.soon = false;
      void poll(queue);
    });
  }

  const dueLeft = async (queue: QueueName): Promise<boolean> => (await store.db.selectFrom('jobs').select('id').where('queue', '=', queue)
    .where('state', '=', 'queued').where('run_at', '<=', Date.now()).limit(1).executeTakeFirst()) !== undefined;

  async function poll(queue: QueueName): Promise<void> {
    const w = workers.get(queue);
    if (!w || stopping) return;
    if (w.polling) {
      // Not dropped: the slot a job just freed would otherwise wait for the timer.
      w.again = true;
      return;
    }
    w.polling = true;
    w.again = false;
    try {
      const capped = w.cappedAt > 0 && Date.now() - w.cappedAt < CAPPED_NUDGE_MS;
      const free = Math.min(w.concurrency - w.running.size, capped ? w.finished : Infinity);
      w.finished = 0;
      if (free <= 0) return;
      const finished = done;
      done = [];
      // One transaction (one commit) for the deletes and every claim of this poll.
      const rows = await store.db.transaction().execute(async (trx) => {
        if (finished.length > 0) await trx.deleteFrom('jobs').where('id', 'in', finished).execute();
        return claim(trx, queue, free, w.groupCap);
      }).catch((err: unknown) => {
        done.push(...finished);
        throw err;
      });
      // Fewer taken than slots free, with due jobs left: those are of groups at their cap (still so while held).
      if (!capped) w.cappedAt = rows.length < free && w.groupCap !== undefined && (await dueLeft(queue)) ? Date.now() : 0;
      for (const row of rows) {
        const envelope = store.readJson<{ payload: unknown }>(row.data);
        // Each job starts on a turn of its own: a job's SQLite work is synchronous, and jobs chained in
        // microtasks would hold the event loop for the whole backlog.
        const run = yieldToLoop().then(() => w.handler({ id: row.id, data: envelope.payload, retryCount: row.attempts - 1 }))
          .then(() => undefined, (err: unknown) => err ?? new Error('job failed'))
          .then((err) => settle(row.id, row.attempts, row.max_attempts, row.data, err))
          .catch((err: unknown) => log.error({ error: errorSummary(err), queue, job: row.id }, 'could not settle job'))
          .finally(() => {
            w.running.delete(row.id);
            w.finished += 1;
            pollSoon(queue, w);
          });
        w.running.set(row.id, run);
      }
    } catch (err) {
      log.warn({ error: errorSummary(err), queue }, 'job poll failed');
    } finally {
      w.polling = false;
      if (w.again) void poll(queue);
    }
  }

  return {
    async send(db: Kysely<DB>, queue: QueueName, data: object, retry: RetryPolicy, opts: SendOptions = {}): Promise<void> {
      const now = Date.now();
      await db.insertInto('jobs').values({
        id: newId('job'),
        queue,
        data: JSON.stringify({ payload: data, retry }),
        state: 'queued',
        attempts: 0,
        max_attempts: retry.limit + 1,
        run_at: now + Math.max(0, opts.delayMs ?? 0),
        priority: opts.priority ?? 0,
        group_id: opts.group ?? null,
        locked_until: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      }).execute();
    },
    async work<T>(queue: QueueName, handler: JobHandler<T>, opts: WorkOptions = {}): Promise<void> {
      const timer = setInterval(() => void poll(queue), timing.pollMs);
      timer.unref();
      workers.set(queue, { handler: handler as JobHandler<unknown>, groupCap: opts.groupCap, concurrency: opts.concurrency ?? timing.concurrency, running: new Map(), timer, polling: false, again: false, soon: false, cappedAt: 0, held: null, finished: 0 });
      void poll(queue);
    },
    nudge(queue: QueueName): void {
      const w = workers.get(queue);
      const wait = w && w.cappedAt > 0 ? w.cappedAt + CAPPED_NUDGE_MS - Date.now() : 0;
      if (!w || wait <= 0) return void poll(queue);
      w.held ??= setTimeout(() => {
        w.held = null;
        void poll(queue);
      }, wait);
    },
    async stop(timeoutMs: number): Promise<void> {
      stopping = true;
      for (const w of workers.values()) {
        clearInterval(w.timer);
        if (w.held) clearTimeout(w.held);
      }
      const running = () => [...workers.values()].flatMap((w) => [...w.running.values()]);
      await Promise.race([Promise.allSettled(running()), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
      if (done.length > 0) await store.db.deleteFrom('jobs').where('id', 'in', done.splice(0)).execute();
      // Jobs still running are handed back for the next process to take up at once (handlers are idempotent).
      const left = [...workers.values()].flatMap((w) => [...w.running.keys()]);
      if (left.length > 0) {
        await store.db.updateTable('jobs').set({ state: 'queued', locked_until: null, run_at: Date.now() })
          .where('id', 'in', left).where('state', '=', 'active').execute();
      }
    },
  };
}
