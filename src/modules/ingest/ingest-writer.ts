import type { DatabaseSync } from 'node:sqlite';
import { mergeEffects, noEffects, stored, type Stored } from '../alerts/alert-effects-fns.ts';
import type { SqliteAlertWrites } from '../alerts/alert-writer-sqlite.ts';
import type { OpResult, WriteOp } from '../alerts/alert-writer-types.ts';
import type { Settled } from '../../db/group-commit.ts';
import { beginImmediate } from '../../db/sqlite-database.ts';
import { sibling, threadClient } from '../../lib/thread.ts';

/** Alerts of one payload stored per turn of the event loop. */
export const INGEST_CHUNK = 50;

/** A SQLite batch's answers, one per job, and how many outbox and live rows its commit stored. */
export interface SqliteBatch {
  out: Array<Settled<OpResult[]>>;
  stored: Stored;
}

/**
 * SQLite: a batch is one transaction. A job of several statements runs under a savepoint, so that one failing
 * is rolled back alone (its effects with it) and only its caller sees the error; a single statement is atomic
 * by itself. The effects of the jobs that succeeded are stored just before the commit (alert-writer-sqlite.ts).
 * `pause`, on the main thread: a 1,000-alert batch is ~100 ms of synchronous statements, so it lets the event
 * loop turn every INGEST_CHUNK statements; the transaction stays open and the connection held (`exclusive`),
 * so no other statement of this process runs inside it meanwhile.
 */
export async function runSqliteBatch(raw: DatabaseSync, writes: SqliteAlertWrites, jobs: WriteOp[][], pause: (() => Promise<void>) | null): Promise<SqliteBatch> {
  const out: Array<Settled<OpResult[]>> = [];
  const fx = noEffects();
  const workflows = new Map<string, boolean>();
  let ran = 0;
  beginImmediate(raw);
  try {
    for (const ops of jobs) {
      const guarded = ops.length > 1;
      if (guarded) raw.exec('savepoint job');
      const jobFx = noEffects();
      try {
        const value: OpResult[] = [];
        for (const op of ops) {
          if (pause && ran > 0 && ran % INGEST_CHUNK === 0) await pause();
          ran++;
          value.push(writes.apply(op, jobFx, workflows));
        }
        out.push({ ok: true, value });
        if (guarded) raw.exec('release savepoint job');
        mergeEffects(fx, jobFx);
      } catch (error) {
        if (guarded) raw.exec('rollback to savepoint job; release savepoint job');
        out.push({ ok: false, error });
      }
      // Some errors (I/O, a full disk) make SQLite roll the whole transaction back: the batch then failed whole.
      if (!raw.isTransaction) throw new Error('SQLite rolled the ingest transaction back');
    }
    writes.flush(fx);
    raw.exec('commit');
  } catch (error) {
    if (raw.isTransaction) raw.exec('rollback');
    throw error;
  }
  return { out, stored: stored(fx) };
}

/**
 * SQLite batches written by a thread of their own (ingest-write-worker.ts), on its own connection to the file:
 * SQLite's work and the commit's fsync no longer stop the main thread, which parses and validates the next requests
 * meanwhile (WAL lets the main connection read, and busy_timeout serializes its few writes with the thread's).
 */
export const sqliteWriterThread = (file: string) =>
  threadClient<WriteOp[][], SqliteBatch>(sibling('ingest-write-worker', import.meta.url), { file });
