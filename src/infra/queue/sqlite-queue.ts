import type { Kysely, Selectable } from 'kysely';
import { runSql } from '../../db/sql-text.ts';
import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { yieldToLoop } from '../../lib/yield.ts';
import { errorSummary } from '../../lib/logger.ts';
import { pollLoop, type PollWorker } from './poll-loop.ts';
import { backoffMs, type JobHandler, type JobQueue, type QueueName, type RetryPolicy, type SendOptions, type WorkOptions } from './queue.ts';

export interface QueueTiming {
  /** How often an idle worker looks for due jobs. */
  pollMs: number;
  /** How long a taken job belongs to its worker; after that, another may take it (its worker is presumed dead). */
  leaseMs: number;
  /** Jobs one worker runs at once. */
  concurrency: number;
}

interface Worker extends PollWorker {
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

type JobRow = Selectable<DB['jobs']>;

/** The groups of a queue that run `cap` jobs or more now (live leases only), in SQLite's order (the ranges below need it). */
const CAPPED_SQL = `select group_id from jobs where queue = ? and state = 'active' and locked_until >= ? and group_id is not null
  group by group_id having count(*) >= ? order by group_id`;

const notCapped = (capped: number): string => (capped === 0 ? '' : ` and (group_id is null or group_id not in (${Array(capped).fill('?').join(', ')}))`);

/**
 * The claim with `capped` groups left out: the queued and the lease-expired candidates are looked up apart, each the
 * first row of the index in claim order (jobs_claim_groups; as one OR they were every due job sorted), and the better
 * one is taken. An active job is a candidate only once its lease ran out: its worker died mid-job. Its parameters: the
 * lease's end, now, then queue, now and the capped groups for each candidate.
 */
const claimSql = (capped: number): string => `update jobs set state = 'active', locked_until = ?, attempts = attempts + 1, updated_at = ?
  where id = (select id from (
    select * from (select id, priority, run_at from jobs where queue = ? and state = 'active' and locked_until < ?${notCapped(capped)}
      order by priority desc, run_at limit 1)
    union all
    select * from (select id, priority, run_at from jobs where queue = ? and state = 'queued' and run_at <= ?${notCapped(capped)}
      order by priority desc, run_at limit 1)
  ) order by priority desc, run_at limit 1)
  returning *`;

/** A new job, queued (SQL text as the claim's: three jobs are queued per alert paged by email and webhook). */
const SEND_SQL = `insert into jobs (id, queue, data, state, attempts, max_attempts, run_at, priority, group_id, locked_until, last_error, created_at, updated_at)
  values (?, ?, ?, 'queued', 0, ?, ?, ?, ?, null, null, ?, ?)`;

/** The ranges of jobs_due_groups outside `capped` groups: no group, before the first, each gap, after the last. */
const dueRanges = (capped: number): string[] =>
  ['group_id is null', 'group_id < ?', ...Array<string>(capped - 1).fill('group_id > ? and group_id < ?'), 'group_id > ?'];

/**
 * Whether a job outside the capped groups is due: a lease-expired one, or a queued one in one of `dueRanges`. Its
 * parameters (otherDueParams): queue, now and the capped groups, then for each range queue, its bounds and now.
 */
const otherDueSql = (capped: number): string => [
  `select 1 from (select 1 from jobs where queue = ? and state = 'active' and locked_until < ?${notCapped(capped)} limit 1)`,
  ...dueRanges(capped).map((r) => `select 1 from (select 1 from jobs where queue = ? and state = 'queued' and ${r} and run_at <= ? limit 1)`),
].join(' union all ') + ' limit 1';

/** `capped` in SQLite's order, at least one. */
function otherDueParams(queue: string, capped: string[], now: number): unknown[] {
  const bounds = [[], [capped[0]], ...capped.slice(1).map((c, i) => [capped[i], c]), [capped[capped.length - 1]]];
  return [queue, now, ...capped, ...bounds.flatMap((b) => [queue, ...b, now])];
}

/**
 * The claim's texts by the number of capped groups, each made once: a claim runs for every job, and the same string
 * each time is one SQLite's statement cache finds without hashing a new one.
 */
const claimTexts: string[] = [];
const otherDueTexts: string[] = [];

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
   * first, then the oldest, and never a job of a group that already runs `cap` jobs of this queue. Written as SQL
   * text (claimSql), not built with Kysely: a claim runs for every job, and building it cost more than running it.
   */
  async function claim(db: Kysely<DB>, queue: QueueName, max: number, cap: number | undefined) {
    const now = Date.now();
    const taken: JobRow[] = [];
    for (let i = 0; i < max; i++) {
      const capped = cap === undefined ? [] : (await runSql<{ group_id: string }>(db, CAPPED_SQL, [queue, now, cap])).map((r) => r.group_id);
      // With groups at their cap, ask first whether another group has a due job (an index range per gap between
      // them): the claim's walk in claim order would read the capped groups' whole backlog to find none.
      const n = capped.length;
      if (n > 0 && (await runSql(db, (otherDueTexts[n] ??= otherDueSql(n)), otherDueParams(queue, capped, now))).length === 0) break;
      const [row] = await runSql<JobRow>(db, (claimTexts[n] ??= claimSql(n)), [now + timing.leaseMs, now, queue, now, ...capped, queue, now, ...capped]);
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

  const dueLeft = async (queue: QueueName): Promise<boolean> =>
    (await runSql(store.db, `select 1 from jobs where queue = ? and state = 'queued' and run_at <= ? limit 1`, [queue, Date.now()])).length > 0;

  /** A poll: the jobs done are deleted and the free slots claimed, in one transaction (one commit). */
  async function take(queue: QueueName, w: Worker): Promise<void> {
    const capped = w.cappedAt > 0 && Date.now() - w.cappedAt < CAPPED_NUDGE_MS;
    const free = Math.min(w.concurrency - w.running.size, capped ? w.finished : Infinity);
    w.finished = 0;
    if (free <= 0) return;
    const finished = done;
    done = [];
    const rows = await store.background(async (trx) => {
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
      const settled = yieldToLoop().then(() => w.handler({ id: row.id, data: envelope.payload, retryCount: row.attempts - 1 }))
        .then(() => undefined, (err: unknown) => err ?? new Error('job failed'))
        .then((err) => settle(row.id, row.attempts, row.max_attempts, row.data, err));
      loop.track(queue, w, row.id, settled, () => {
        w.finished += 1;
      });
    }
  }
  const loop = pollLoop({ workers, log, stopping: () => stopping, take });
  const poll = loop.poll;

  return {
    async send(db: Kysely<DB>, queue: QueueName, data: object, retry: RetryPolicy, opts: SendOptions = {}): Promise<void> {
      const now = Date.now();
      const runAt = now + Math.max(0, opts.delayMs ?? 0);
      await runSql(db, SEND_SQL, [newId('job'), queue, JSON.stringify({ payload: data, retry }), retry.limit + 1, runAt,
        opts.priority ?? 0, opts.group ?? null, now, now]);
    },
    async work<T>(queue: QueueName, handler: JobHandler<T>, opts: WorkOptions = {}): Promise<void> {
      workers.set(queue, { handler: handler as JobHandler<unknown>, groupCap: opts.groupCap, concurrency: opts.concurrency ?? timing.concurrency, running: new Map(),
        timer: loop.start(queue, timing.pollMs), polling: false, again: false, soon: false, cappedAt: 0, held: null, finished: 0 });
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
      for (const w of workers.values()) if (w.held) clearTimeout(w.held);
      await loop.drain(timeoutMs);
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
